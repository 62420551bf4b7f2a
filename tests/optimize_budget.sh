#!/usr/bin/env bash
# tests/optimize_budget.sh KREWRITE: --budget-minutes is kept. A search that would take far
# longer (five rounds, an empty build cache, so every candidate compiles) is given 9 s: it stops
# with the reason "budget", run.json valid, within the budget and a few seconds of slack (a
# candidate may take longer than the mean of those before it).
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_budget: $*" >&2; exit 1; }
t0=$(date +%s.%N)
XDG_CACHE_HOME="$tmp/cache" "$kr" optimize examples/reduce_sum/problem.lua --rounds 5 --jobs 2 \
  --budget-minutes 0.15 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
t1=$(date +%s.%N)
cat "$tmp/stdout" "$tmp/stderr"
[ $rc -le 1 ] || fail "exit $rc"
grep -q "stopped: budget" "$tmp/stdout" || fail "the summary does not say the budget stopped it"
python3 - "$tmp/out/run.json" "$t0" "$t1" <<'PY' || fail "run.json or the time is wrong"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["stop_reason"] == "budget", t["stop_reason"]
took = float(sys.argv[3]) - float(sys.argv[2])
assert took < 9 + 5, f"took {took:.1f} s for a 9 s budget"
PY
exit 0
