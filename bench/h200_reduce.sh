#!/usr/bin/env bash
# bench/h200_reduce.sh: the reduction recipes timed on the H200, in one device call (carry .gpu
# after scripts/build-gpu.sh). For each problem a few settings of its recipe_reduce.lua are swept
# (bench/sweep.sh: each checked against the naive kernel at the benchmark size, then timed
# interleaved with it), the best benched again with the default protocol, and PyTorch timed on the
# same inputs (bench/torch_seed.py: eager, and torch.compile for the problems in KR_TORCH_COMPILE).
# Everything lands in $OUT/reduce.tgz; bench/schedule_collect.py reads it like schedule.tgz.
#   KR_RED_PROBLEMS   the problems (default: all below)
#   KR_TORCH_COMPILE  the problems also timed with torch.compile (default: softmax layernorm)
#   KR_SET_<problem>  that problem's settings instead of the ones below ("s1|s2|…")
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH KR_SOURCE_DIR=$PWD
kr=$PWD/.gpu/krewrite
w=/tmp/kr-reduce
rm -rf $w; mkdir -p $w
start=$(date +%s)
late() { [ $(( $(date +%s) - start )) -ge "${KR_DEADLINE:-540}" ]; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2;
  python3 -c "import torch; print('torch', torch.__version__)" 2>/dev/null; git rev-parse HEAD 2>/dev/null; } >$w/env.txt
declare -A settings=(
  [softmax]="parts=4|online=true|parts=8 steps=8 shared=0|parts=1 steps=0 shared=0"
  [reduce_sum]="threads=256 parts=64|threads=512 parts=32|threads=128 parts=64"
  [softmax_rowthread]="threads=256|threads=1024"
  [layernorm]="parts=32|threads=512 parts=16|stream=false threads=512 parts=32"
  [rmsnorm_bf16]="threads=128|threads=128 steps=4|threads=256 steps=2|threads=512 steps=1"
  [matvec]="block=true threads=256|threads=256|vector=false threads=256"
  [spmv_csr]="threads=256|threads=128"
  [colsum]="threads=1024|threads=512"
  [matvec_t]="threads=512|threads=1024"
  [rowmax_argmax]="threads=256|block=true threads=256"
  [mean_var]="threads=512|threads=1024|vector=false threads=512"
)
compile=" ${KR_TORCH_COMPILE:-softmax layernorm} "
order="reduce_sum softmax rmsnorm_bf16 layernorm spmv_csr mean_var matvec softmax_rowthread rowmax_argmax colsum matvec_t"
for p in ${KR_RED_PROBLEMS:-$order}; do
  r=examples/$p/recipe_reduce.lua
  late && { echo "deadline: $p skipped" | tee -a $w/log; continue; }
  over=KR_SET_$p
  IFS='|' read -ra s <<<"${!over:-${settings[$p]}}"
  KR_SWEEP_REPS=${KR_SWEEP_REPS:-20} timeout 200 bench/sweep.sh "$kr" examples/$p/problem.lua "$r" $w/$p "${s[@]}" 2>&1 | tee -a $w/log
  [ ${PIPESTATUS[0]} = 124 ] && echo "$p: the sweep ran past its 200 s" | tee -a $w/log
  if [ -d $w/$p/best-dump ]; then
    eager=1; [[ "$compile" == *" $p "* ]] && eager=0
    KR_TORCH_EAGER_ONLY=$eager timeout 150 python3 bench/torch_seed.py $w/$p/best-dump >$w/$p/torch.json 2>$w/$p/torch.err
    echo "$p torch rc=$?: $(tail -c 500 $w/$p/torch.json) $(tail -c 300 $w/$p/torch.err)" | tee -a $w/log
  fi
  rm -rf $w/$p/best-dump
done
tar czf ${OUT:-/tmp}/reduce.tgz -C /tmp kr-reduce
