#!/usr/bin/env bash
# bench/sweep.sh: one schedule recipe timed at several parameter settings, in one device call.
#
#   bench/sweep.sh KREWRITE PROBLEM RECIPE OUTDIR "D1" "D2" ...
#
# Each Di is a list of recipe parameters ("bm=128 bn=128 bk=8 tm=8 tn=8 stages=2"). For each,
# `krewrite bench` builds the recipe's kernel, checks its output against the original at the
# benchmark size, and times both (KR_SWEEP_REPS repetitions, default 20, for the sweep itself);
# the line printed per setting holds its median time and speedup. The fastest setting is then
# benched again with the default protocol (50 repetitions, 1 s) and its inputs and outputs dumped
# to OUTDIR/best-dump for bench/torch_seed.py (cuBLAS / PyTorch on the same inputs).
set -uo pipefail
kr=$1 problem=$2 recipe=$3 out=$4
shift 4
mkdir -p "$out"
reps=${KR_SWEEP_REPS:-20}
best="" best_ms=""
i=0
for setting in "$@"; do
  i=$((i + 1))
  args=()
  for d in $setting; do args+=(-D "$d"); done
  echo "$setting" >"$out/s$i.txt"
  "$kr" bench "$problem" --recipe "$recipe" "${args[@]}" --json --reps "$reps" --min-seconds 0.3 \
    >"$out/s$i.json" 2>"$out/s$i.err"
  rc=$?
  ms=$(python3 -c "import json,sys; r=json.load(open('$out/s$i.json')); print(r['candidate_times']['median_ms'])" 2>/dev/null)
  sp=$(python3 -c "import json,sys; r=json.load(open('$out/s$i.json')); print(r.get('speedup'))" 2>/dev/null)
  echo "sweep $i [$setting]: rc=$rc median ${ms:-?} ms speedup ${sp:-?} $(head -c 300 "$out/s$i.err" | tr '\n' ' ')"
  if [ $rc = 0 ] && [ -n "$ms" ] && { [ -z "$best_ms" ] || python3 -c "import sys; sys.exit(0 if $ms < $best_ms else 1)"; }; then
    best=$setting best_ms=$ms
  fi
done
[ -n "$best" ] || { echo "sweep: no setting was timed"; exit 1; }
args=()
for d in $best; do args+=(-D "$d"); done
echo "best: [$best] at $best_ms ms; benching it again with the default protocol"
mkdir -p "$out/best-dump"; "$kr" bench "$problem" --recipe "$recipe" "${args[@]}" --json --dump "$out/best-dump" >"$out/best.json" 2>"$out/best.err"
echo "best rebench rc=$?: $(python3 -c "import json; r=json.load(open('$out/best.json')); print(r['candidate_times']['median_ms'], 'ms vs original', r['original']['median_ms'], 'ms')" 2>/dev/null)"
echo "$best" >"$out/best.txt"
