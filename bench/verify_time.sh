#!/usr/bin/env bash
# bench/verify_time.sh: how long `krewrite verify` takes on each example, one JSON line per example.
#
#   bench/verify_time.sh KREWRITE DEVICE OUTFILE [EXAMPLE ...]     (default: every example)
#
# DEVICE is cpu or cuda. Each example's recipe.lua is verified once; the line holds the wall time,
# the exit status and the "N passed, M failed" summary, so the same script measures before and
# after a change of the verifier (issue: verification fast enough for a search).
set -uo pipefail
kr=$1 dev=$2 out=$3
shift 3
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls examples | grep -v README))
: >"$out"
for n in "${names[@]}"; do
  p=examples/$n/problem.lua r=examples/$n/recipe.lua
  s=$(date +%s.%N)
  "$kr" verify "$p" --recipe "$r" --device "$dev" >"$out.$n.txt" 2>&1
  rc=$?
  t=$(python3 -c "import sys; print(round($(date +%s.%N) - $s, 3))")
  line=$(grep -E '^[0-9]+ passed' "$out.$n.txt" | tail -1)
  printf '{"example": "%s", "device": "%s", "seconds": %s, "rc": %d, "summary": "%s"}\n' \
    "$n" "$dev" "$t" "$rc" "$line" | tee -a "$out"
done
