#!/usr/bin/env bash
# bench/h200_verify.sh: the GPU side of the verifier's work, in one device call (carry .gpu after
# scripts/build-gpu.sh and `cmake --build build/gpu --target gpu_cuda gpu_intrin gpu_fill`, copied there):
#   1. `krewrite verify --device cuda` timed on every example (bench/verify_time.sh), to compare
#      with bench/results/verify-time-before-2026-12-01.json;
#   2. the GPU protocol test (tests/verify_gpu.sh) and the gpu-labelled test binaries;
#   3. the planted-bug suite on the GPU (tests/planted.sh --device cuda);
#   4. that the GPU children really run confined (Seccomp and NoNewPrivs of a running child);
#   5. the schedule recipes of transpose and matmul benched;
#   6. `krewrite optimize --device cuda` on matmul with a 3-minute budget (the search finds the
#      schedule passes).
# Everything lands in $OUT/verify.tgz (the device tool returns few files).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH KR_SOURCE_DIR=$PWD
kr=$PWD/.gpu/krewrite
w=/tmp/kr-verify
mkdir -p $w
start=$(date +%s)
late() { [ $(( $(date +%s) - start )) -ge "${KR_DEADLINE:-540}" ]; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; } | tee $w/env.txt
echo "== 4. confinement of a running GPU child" | tee -a $w/log
$kr bench examples/matmul/problem.lua --recipe examples/matmul/recipe_tiled.lua --json >$w/bench-matmul.json 2>$w/bench-matmul.err &
bp=$!
for i in $(seq 1 60); do
  sleep 0.5
  for p in $(pgrep -f "$kr" || true); do
    s=$(grep -E "^(Seccomp|NoNewPrivs):" /proc/$p/status 2>/dev/null | tr '\n' ' ')
    case "$s" in *"Seccomp:	2"*) echo "pid $p: $s" | tee -a $w/log; break 2 ;; esac
  done
done
wait $bp; echo "matmul bench rc=$?" | tee -a $w/log
echo "== 1. verify time per example" | tee -a $w/log
late || timeout 200 bench/verify_time.sh $kr cuda $w/after-cuda.jsonl vector_add softmax matmul transpose layernorm conv2d 2>&1 | tee -a $w/log
echo "== 2. protocol and test binaries" | tee -a $w/log
late || timeout 120 tests/verify_gpu.sh $kr >$w/verify_gpu.txt 2>&1; echo "verify_gpu rc=$?" | tee -a $w/log
late || timeout 120 .gpu/gpu_intrin >$w/gpu_intrin.txt 2>&1; echo "gpu_intrin rc=$?" | tee -a $w/log
late || timeout 120 .gpu/gpu_cuda >$w/gpu_cuda.txt 2>&1; echo "gpu_cuda rc=$?" | tee -a $w/log
late || timeout 120 .gpu/gpu_fill >$w/gpu_fill.txt 2>&1; echo "gpu_fill rc=$?" | tee -a $w/log
tail -3 $w/gpu_fill.txt | tee -a $w/log
echo "== 3. planted suite on the GPU" | tee -a $w/log
late || timeout 240 tests/planted.sh $kr --device cuda >$w/planted-gpu.txt 2>&1; echo "planted rc=$?" | tee -a $w/log
tail -4 $w/planted-gpu.txt | tee -a $w/log
echo "== 6. the search on matmul: 3 minutes, built-in proposer" | tee -a $w/log
if [ $(( $(date +%s) - start )) -lt 330 ]; then
  timeout 230 $kr optimize examples/matmul/problem.lua --device cuda --budget-minutes 3 --out $w/opt-matmul \
    --jobs 16 >$w/opt-matmul.txt 2>&1; echo "optimize rc=$?" | tee -a $w/log
  tail -6 $w/opt-matmul.txt | tee -a $w/log
else echo "skipped: too late" | tee -a $w/log; fi
echo "== 5. transpose schedule" | tee -a $w/log
late || $kr bench examples/transpose/problem.lua --recipe examples/transpose/recipe_tiled.lua >$w/bench-transpose.txt 2>&1
tail -4 $w/bench-transpose.txt | tee -a $w/log
tar czf $OUT/verify.tgz -C $w . && ls -la $OUT
