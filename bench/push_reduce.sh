#!/usr/bin/env bash
# bench/push_reduce.sh: split_rows' pushed cluster exchange and row_cache's cp.async first sweep on the H200 (carry
# .gpu): the emitted softmax kernel before (bench/proto/softmax/emitted.cu, kept) and after (emitted_push.cu, made
# here by .gpu/krewrite) timed interleaved through harness.cu, outputs compared bit for bit; then the recipes that use them (softmax, rmsnorm_bf16,
# layernorm resident) checked at the benchmark size and timed by bench/h200_reduce.sh beside PyTorch.
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
.gpu/krewrite apply examples/softmax/recipe_reduce.lua examples/softmax/kernel.cu -o bench/proto/softmax/emitted_push.cu || exit 1
( cd bench/proto/softmax && for v in emitted emitted_push; do nvcc -O3 -arch=sm_90 -DKFILE="\"$v.cu\"" -o /tmp/sm_$v harness.cu -Xptxas -v 2>&1 | grep -E "registers|error"; done; rm -f /tmp/sm_ref.bin; for i in 1 2 3; do for v in emitted emitted_push; do /tmp/sm_$v $v; done; done )
KR_RED_PROBLEMS="softmax rmsnorm_bf16 layernorm" KR_TORCH_COMPILE=softmax KR_SET_softmax="parts=8" KR_SET_rmsnorm_bf16="threads=128 steps=4" KR_SET_layernorm="parts=32|resident=true threads=512 shared=96" KR_DEADLINE=400 bash bench/h200_reduce.sh 2>&1 | grep -E "sweep|best|torch" | cut -c1-700
