#!/usr/bin/env bash
# bench/h200_tensor.sh: the tensor-core recipes timed on the H200, in one device call (carry .gpu
# after scripts/build-gpu.sh). For each precision of examples/matmul/recipe_tc.lua a few schedules
# are swept (bench/sweep.sh: each checked against the naive kernel at the benchmark size, then timed
# interleaved with it); the best of each is benched again and PyTorch eager run on its inputs
# (bench/torch_seed.py with TF32 off and on, and every output's error against float64).
# Everything lands in $OUT/tensor.tgz; bench/schedule_collect.py turns it into one results file.
#   KR_TC_RUNS   the runs, "name|problem|recipe|fixed settings" lines (default: matmul 3xtf32, tf32)
#   KR_TC_SET_<name>  its settings, "s1|s2|..." (default: the list below)
#   KR_TC_COMPILE=1   torch.compile timed too (KR_TC_TORCH_TIMEOUT: its time limit in s, default 120)
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH KR_SOURCE_DIR=$PWD
kr=$PWD/.gpu/krewrite
w=/tmp/kr-tensor
rm -rf $w; mkdir -p $w
start=$(date +%s)
late() { [ $(( $(date +%s) - start )) -ge "${KR_DEADLINE:-500}" ]; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2;
  python3 -c "import torch; print('torch', torch.__version__)" 2>/dev/null; git rev-parse HEAD 2>/dev/null; } >$w/env.txt
S="bm=128 bn=128 bk=32 wm=64 wn=32 stages=3|bm=128 bn=256 bk=32 wm=64 wn=64 stages=3|bm=128 bn=128 bk=16 wm=64 wn=32 stages=4|bm=256 bn=128 bk=32 wm=64 wn=64 stages=3"
runs=${KR_TC_RUNS:-"matmul_3xtf32|matmul|recipe_tc.lua|precision=3xtf32
matmul_tf32|matmul|recipe_tc.lua|precision=tf32"}
# KR_TC_VERIFY: "problem|recipe|settings" lines verified on the GPU at the test sizes first
while IFS='|' read -r problem recipe settings; do
  [ -n "$problem" ] || continue
  args=(); for d in $settings; do args+=(-D "$d"); done
  spec=examples/$problem/problem.lua; rec=examples/$problem/$recipe
  case $problem in */*) spec=$problem rec=$recipe ;; esac   # a fixture: both paths as given
  $kr verify $spec --recipe $rec "${args[@]}" --device cuda >$w/verify.txt 2>&1
  echo "verify $problem [$settings]: rc=$? $(grep -E 'passed|FAIL' $w/verify.txt | head -3 | tr '\n' ' ')" | tee -a $w/log
done <<<"${KR_TC_VERIFY:-}"
while IFS='|' read -r name problem recipe fixed; do
  [ -n "$name" ] || continue
  late && { echo "deadline: $name skipped" | tee -a $w/log; continue; }
  var=KR_TC_SET_$name
  IFS='|' read -ra s <<<"${!var:-$S}"
  for i in "${!s[@]}"; do s[$i]="$fixed ${s[$i]}"; done
  KR_SWEEP_REPS=${KR_SWEEP_REPS:-20} timeout 300 bench/sweep.sh "$kr" examples/$problem/problem.lua examples/$problem/$recipe \
    $w/$name "${s[@]}" 2>&1 | tee -a $w/log
  if [ -d $w/$name/best-dump ]; then
    KR_TORCH_EAGER_ONLY=$([ -n "${KR_TC_COMPILE:-}" ] && echo 0 || echo 1) KR_TORCH_F64=1 KR_TORCH_TF32=1 \
      timeout ${KR_TC_TORCH_TIMEOUT:-120} python3 bench/torch_seed.py $w/$name/best-dump \
      >$w/$name/torch.json 2>$w/$name/torch.err
    echo "torch rc=$?: $(tail -c 600 $w/$name/torch.json)" | tee -a $w/log
  fi
  rm -rf $w/$name/best-dump
done <<<"$runs"
# KR_TC_SASS: "problem|recipe|settings" lines whose kernel's SASS is summarised (instruction counts)
while IFS='|' read -r problem recipe settings; do
  [ -n "$problem" ] || continue
  args=(); for d in $settings; do args+=(-D "$d"); done
  f=$w/sass-$problem-$(echo "$settings" | tr ' =' '_-').txt
  $kr apply examples/$problem/$recipe examples/$problem/kernel.cu "${args[@]}" >$w/k.cu 2>$f.err &&
    nvcc -arch=sm_90 -cubin -Xptxas -v -o $w/k.cubin $w/k.cu 2>>$f.err &&
    cuobjdump -sass $w/k.cubin | grep -oE '^ +/\*[0-9a-f]{4}\*/ +[A-Z][A-Z0-9_.]+' | awk '{print $2}' | sort | uniq -c | sort -rn >$f
  echo "sass $problem [$settings]: $(head -12 $f | tr -s ' \n' ' ')" | tee -a $w/log
done <<<"${KR_TC_SASS:-}"
tar czf ${OUT:-/tmp}/tensor.tgz -C /tmp kr-tensor
