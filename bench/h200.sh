#!/usr/bin/env bash
# bench/h200.sh PHASE...: the GPU work (verify, sanitize, bench, profile, optimize), run on the lent H200 through the device tool
# with `carry: [".gpu"]` (scripts/build-gpu.sh makes .gpu/ here first). Phases, in order given:
#   smoke     the gpu-labelled test binary's checks through krewrite: one verify and one bench
#   verify    every example's recipes verified with --device cuda
#   sanitize  compute-sanitizer memcheck and racecheck over every shipped recipe's output
#             (one seed, the first test size)
#   bench     each seed problem timed (original vs each recipe); PyTorch eager and
#             torch.compile timed on the same inputs and checked against ours (torch_seed.py)
#   profile   ncu's raw CSV for vector_add (a test fixture), `krewrite profile` on seed problems
#   gputests  the gpu-labelled script tests (launch-once, real ncu, optimize_gpu.sh)
#   optimize  `krewrite optimize` on each seed problem (KR_OPT_PROBLEMS, KR_OPT_MIN minutes each,
#             KR_OPT_ROUNDS, KR_OPT_FLAGS), the best re-benched, PyTorch eager on its inputs
# KR_DEADLINE (seconds since the start, default 540) stops starting new work, so what was done
# still comes back. Only three files go back through $OUT: the log, the environment, an archive.
set -uo pipefail
dest=${OUT:-/tmp/kr-out}
out=/tmp/kr-run
mkdir -p "$out" "$dest"
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite
start=$(date +%s)
deadline=${KR_DEADLINE:-540}
log() { printf '%s\n' "$*" | tee -a "$out/run.log"; }
late() { [ $(( $(date +%s) - start )) -ge "$deadline" ] && { log "deadline: skipping $*"; return 0; }; return 1; }
# timed OUT ERR CMD...: runs CMD with stdout to OUT and stderr to ERR; prints "exit N, T ms".
timed() {
  local o=$1 e=$2 t0
  shift 2
  t0=$(date +%s%N)
  "$@" >"$o" 2>"$e"
  local rc=$?
  echo "exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}

{
  echo "{\"date\": \"$(date -u +%FT%TZ)\","
  echo " \"gpu\": \"$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)\","
  echo " \"driver\": \"$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)\","
  echo " \"nvcc\": \"$(nvcc --version | grep -o 'release [0-9.]*, V[0-9.]*')\","
  echo " \"torch\": \"$(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)\","
  echo " \"krewrite\": \"$($kr --version)\", \"commit\": \"${KR_COMMIT:-unknown}\"}"
} >"$out/env.json"
cat "$out/env.json"

recipes() { for p in examples/*/problem.lua; do for r in "$(dirname "$p")"/recipe*.lua; do [ -e "$r" ] && echo "$p $r"; done; done; }
name_of() { echo "$(basename "$(dirname "$1")")-$(basename "$2" .lua)"; }

for phase in "$@"; do
  case $phase in
  smoke)
    r=$(timed "$out/smoke-verify.txt" "$out/smoke-verify.err" $kr verify examples/vector_add/problem.lua --recipe examples/vector_add/recipe.lua --device cuda)
    log "smoke verify: $r: $(tail -1 "$out/smoke-verify.txt")"
    r=$(timed "$out/smoke-bench.txt" "$out/smoke-bench.err" $kr bench examples/vector_add/problem.lua --recipe examples/vector_add/recipe.lua)
    log "smoke bench: $r"; cat "$out/smoke-bench.txt" | tee -a "$out/run.log"
    ;;
  verify)
    recipes | while read -r p r; do
      late "verify $r" && break
      n=$(name_of "$p" "$r")
      res=$(timed "$out/v-$n.json" "$out/v-$n.err" $kr verify "$p" --recipe "$r" --device cuda --json)
      log "verify $n: $res $(grep -o '"passed": [0-9]*, "failed": [0-9]*' "$out/v-$n.json")"
    done
    ;;
  sanitize)
    recipes | while read -r p r; do
      n=$(name_of "$p" "$r")
      for tool in memcheck racecheck; do
        late "$tool $r" && break 2
        compute-sanitizer --tool $tool --target-processes all --error-exitcode 99 \
          $kr verify "$p" --recipe "$r" --device cuda --seeds 1 --max-cases 1 >"$out/s-$n-$tool.txt" 2>&1
        log "sanitizer $tool $n: exit $? $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/s-$n-$tool.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
      done
    done
    ;;
  bench)
    for pr in matmul conv2d conv_relu_maxpool softmax layernorm; do
      ex=examples/$pr
      dump="--dump /tmp/dump-$pr"
      mkdir -p "/tmp/dump-$pr"
      for r in "$ex"/recipe*.lua; do
        late "bench $r" && break 2
        n=$pr-$(basename "$r" .lua)
        res=$(timed "$out/b-$n.json" "$out/b-$n.err" $kr bench "$ex/problem.lua" --recipe "$r" --json $dump)
        log "bench $n: $res $(grep -o '"speedup": [0-9.]*' "$out/b-$n.json") $(head -c 300 "$out/b-$n.err")"
        dump=""
      done
      late "torch $pr" && break
      res=$(timed "$out/t-$pr.json" "$out/t-$pr.err" python3 bench/torch_seed.py "/tmp/dump-$pr")
      log "torch $pr: $res $(head -c 400 "$out/t-$pr.json") $(tail -c 300 "$out/t-$pr.err")"
      rm -rf "/tmp/dump-$pr"
    done
    ;;
  profile)
    # Nsight Compute by hand on vector_add (the raw CSV becomes a test fixture), then
    # `krewrite profile` on each seed problem's original kernel.
    # A wrapper that keeps a copy of what ncu printed, with the command line krewrite gave it.
    printf '#!/bin/sh\necho "$*" > "%s/ncu-argv.txt"\nncu "$@" | tee "%s/ncu-raw-$KR_NCU_TAG.csv"\n' \
      "$out" "$out" > /tmp/ncu-tee.sh
    chmod +x /tmp/ncu-tee.sh
    for pr in vector_add reduce_sum; do
      res=$(KR_NCU_TAG=$pr timed "$out/p-raw-$pr.txt" "$out/p-raw-$pr.err" $kr profile examples/$pr/problem.lua --ncu /tmp/ncu-tee.sh)
      log "ncu raw $pr: $res $(head -c 300 "$out/p-raw-$pr.txt") $(head -c 300 "$out/p-raw-$pr.err")"
    done
    for pr in ${KR_PROFILE_PROBLEMS:-vector_add matmul softmax layernorm}; do
      late "profile $pr" && break
      res=$(timed "$out/p-$pr.json" "$out/p-$pr.err" $kr profile examples/$pr/problem.lua --json)
      log "profile $pr: $res $(grep -o '"class": "[a-z-]*"' "$out/p-$pr.json") $(head -c 300 "$out/p-$pr.err")"
    done
    ;;
  gputests)
    # The gpu-labelled script tests of tests/CMakeLists.txt, run directly (no ctest here).
    res=$(timed "$out/gt-launch-once.txt" "$out/gt-launch-once.err" $kr profile --launch-once examples/vector_add/problem.lua)
    log "gpu test launch-once: $res"
    res=$(timed "$out/gt-ncu.txt" "$out/gt-ncu.err" $kr profile examples/vector_add/problem.lua)
    log "gpu test real ncu: $res $(grep -c memory-bandwidth-bound "$out/gt-ncu.txt") $(head -c 300 "$out/gt-ncu.err")"
    res=$(timed "$out/gt-optimize.txt" "$out/gt-optimize.err" tests/optimize_gpu.sh $kr)
    log "gpu test optimize_gpu.sh: $res $(tail -c 400 "$out/gt-optimize.err")"
    ;;
  optimize)
    # `krewrite optimize` with the heuristic proposer on each seed problem, within a budget; then
    # the best candidate benched again in a fresh process with its inputs dumped, and PyTorch
    # eager timed on those inputs in the same call (torch_seed.py); the report page of each run.
    for pr in ${KR_OPT_PROBLEMS:-matmul conv2d conv_relu_maxpool softmax layernorm}; do
      late "optimize $pr" && break
      o=$out/opt-$pr
      res=$(timed "$out/o-$pr.txt" "$out/o-$pr.err" $kr optimize examples/$pr/problem.lua \
        --device cuda --rounds ${KR_OPT_ROUNDS:-3} --branch 2 --keep 2 \
        --budget-minutes ${KR_OPT_MIN:-2} --jobs 16 ${KR_OPT_FLAGS:-} --out "$o")
      log "optimize $pr: $res $(tr '\n' ' ' < "$out/o-$pr.txt")"
      $kr report "$o/run.json" -o "$o/report.html" >/dev/null 2>>"$out/o-$pr.err"
      best=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["best"]; print(b["id"] if b else "")' "$o/run.json")
      [ -n "$best" ] || continue
      late "bench best $pr" && break
      mkdir -p "/tmp/dump-$pr"
      res=$(timed "$out/ob-$pr.json" "$out/ob-$pr.err" $kr bench examples/$pr/problem.lua \
        --recipe "$o/cand-$best.lua" --json --dump "/tmp/dump-$pr")
      log "bench best $pr (cand-$best): $res $(grep -o '"speedup": [0-9.]*' "$out/ob-$pr.json")"
      res=$(KR_TORCH_EAGER_ONLY=1 timed "$out/ot-$pr.json" "$out/ot-$pr.err" python3 bench/torch_seed.py "/tmp/dump-$pr")
      log "torch eager $pr: $res $(head -c 300 "$out/ot-$pr.json") $(tail -c 200 "$out/ot-$pr.err")"
      rm -rf "/tmp/dump-$pr"
    done
    ;;
  *) log "unknown phase $phase" ;;
  esac
done
cp "$out/run.log" "$out/env.json" "$dest/"
tar -C "$out" -czf "$dest/all.tgz" .
