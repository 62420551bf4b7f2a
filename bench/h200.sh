#!/usr/bin/env bash
# bench/h200.sh PHASE...: the GPU work of issue 5, run on the lent H200 through the device tool
# with `carry: [".gpu"]` (scripts/build-gpu.sh makes .gpu/ here first). Phases, in order given:
#   smoke     the gpu-labelled test binary's checks through krewrite: one verify and one bench
#   verify    every example's recipes verified with --device cuda
#   sanitize  compute-sanitizer memcheck and racecheck over every shipped recipe's output
#             (one seed, the first test size)
#   bench     each seed problem timed (original vs each recipe); PyTorch eager and
#             torch.compile timed on the same inputs and checked against ours (torch_seed.py)
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
  *) log "unknown phase $phase" ;;
  esac
done
cp "$out/run.log" "$out/env.json" "$dest/"
tar -C "$out" -czf "$dest/all.tgz" .
