#!/usr/bin/env bash
# bench/h200_schedule.sh: the schedule recipes timed on the H200, in one device call (carry .gpu
# after scripts/build-gpu.sh). For each problem a few settings of its recipe_tiled.lua are swept
# (bench/sweep.sh: each checked against the naive kernel at the benchmark size, then timed
# interleaved with it), the best benched again with the default protocol, and for matmul PyTorch
# eager (cuBLAS) timed on the same inputs (bench/torch_seed.py). Everything lands in
# $OUT/schedule.tgz; bench/schedule_collect.py turns it into one results file.
#   KR_SCHED_PROBLEMS  the problems, default: all of those below that have a recipe_tiled.lua
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH KR_SOURCE_DIR=$PWD
kr=$PWD/.gpu/krewrite
w=/tmp/kr-schedule
rm -rf $w; mkdir -p $w
start=$(date +%s)
late() { [ $(( $(date +%s) - start )) -ge "${KR_DEADLINE:-540}" ]; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2;
  python3 -c "import torch; print('torch', torch.__version__)" 2>/dev/null; git rev-parse HEAD 2>/dev/null; } >$w/env.txt
M="bm=128 bn=128 tm=8 tn=8"
declare -A settings=(
  [matmul]="$M bk=16 stages=2|$M bk=8 stages=3|$M bk=32 stages=1|$M bk=8 stages=4"
  [matmul_tn]="$M bk=16 stages=2|$M bk=8 stages=3|$M bk=32 stages=1"
  [matmul_flat]="$M bk=16 stages=2|$M bk=8 stages=3|$M bk=32 stages=1"
  [syrk]="$M bk=16 stages=2|$M bk=8 stages=3|bm=64 bn=64 bk=16 tm=4 tn=4 stages=2"
  [mm2]="$M bk=16 stages=2|$M bk=8 stages=3|$M bk=32 stages=1"
  [gemm_accum]="bm=64 bn=64 bk=16 tm=4 tn=4 stages=2|bm=32 bn=64 bk=16 tm=2 tn=4 stages=2|bm=32 bn=32 bk=16 tm=2 tn=2 stages=2|bm=64 bn=32 bk=16 tm=4 tn=2 stages=3"
  [matmul_tallk]="$M bk=16 stages=2 parts=16|$M bk=16 stages=2 parts=8|bm=64 bn=64 bk=16 tm=4 tn=4 stages=2 parts=4|$M bk=16 stages=2 parts=32"
  [transpose]="bm=64 bn=32|bm=32 bn=32|bm=64 bn=64"
  [stencil2d]="bm=32 bn=64|bm=16 bn=128|bm=64 bn=64|bm=32 bn=128"
)
order="matmul transpose stencil2d matmul_tallk gemm_accum matmul_tn matmul_flat syrk mm2"
for p in ${KR_SCHED_PROBLEMS:-$order}; do
  r=examples/$p/recipe_tiled.lua
  [ -f "$r" ] || { echo "$p: no $r" | tee -a $w/log; continue; }
  late && { echo "deadline: $p skipped" | tee -a $w/log; continue; }
  IFS='|' read -ra s <<<"${settings[$p]}"
  KR_SWEEP_REPS=${KR_SWEEP_REPS:-20} timeout 240 bench/sweep.sh "$kr" examples/$p/problem.lua "$r" $w/$p "${s[@]}" 2>&1 | tee -a $w/log
  if [ $p = matmul ] && [ -d $w/$p/best-dump ]; then
    KR_TORCH_EAGER_ONLY=1 timeout 120 python3 bench/torch_seed.py $w/$p/best-dump >$w/$p/torch.json 2>$w/$p/torch.err
    echo "torch rc=$?: $(tail -c 400 $w/$p/torch.json)" | tee -a $w/log
  fi
  rm -rf $w/$p/best-dump
done
tar czf ${OUT:-/tmp}/schedule.tgz -C /tmp kr-schedule
