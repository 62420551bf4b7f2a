#!/usr/bin/env bash
# tests/optimize_interrupt.sh KREWRITE: Ctrl-C during `krewrite optimize` (SIGINT to the process,
# while the round's candidates are being built or verified). The run stops at the next check,
# exits non-zero without being killed by the signal, leaves run.json valid JSON with the stop
# reason "interrupted", leaves no temporary files behind and no child processes running.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_interrupt: $*" >&2; exit 1; }
XDG_CACHE_HOME="$tmp/cache" "$kr" optimize examples/reduce_sum/problem.lua --rounds 3 --jobs 2 \
  --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
# Wait until the first candidate is recorded (or the run is visibly under way), then interrupt.
for _ in $(seq 300); do
  grep -q '"id": 1,' "$tmp/out/run.json" 2>/dev/null && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -INT $pid 2>/dev/null || fail "the run ended before it could be interrupted"
wait $pid
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc -ge 128 ] && fail "killed by the signal (exit $rc) instead of stopping"
grep -q "stopped: interrupted" "$tmp/stdout" || fail "the summary does not say it was interrupted"
python3 - "$tmp/out/run.json" <<'PY' || fail "run.json is not valid or lacks the stop reason"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["stop_reason"] == "interrupted", t["stop_reason"]
PY
ls "$tmp/out" | grep -q 'tmp' && fail "temporary files left in the output folder: $(ls "$tmp/out")"
sleep 0.5
pgrep -f "$tmp/out" >/dev/null && fail "processes of the run are still alive: $(pgrep -af "$tmp/out")"

# Again, one second in, while the parallel builds run (an empty cache: nvcc takes seconds): the
# builders are stopped with the run, and run.json is valid.
XDG_CACHE_HOME="$tmp/cache2" "$kr" optimize examples/reduce_sum/problem.lua --rounds 3 --jobs 2 \
  --out "$tmp/out2" >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
sleep 1
kill -INT $pid 2>/dev/null || fail "the run ended within a second"
t0=$(date +%s)
wait $pid
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc -ge 128 ] && fail "(builds) killed by the signal (exit $rc) instead of stopping"
[ $(( $(date +%s) - t0 )) -le 10 ] || fail "(builds) the run took more than 10 s to stop"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["stop_reason"] == "interrupted"' \
  "$tmp/out2/run.json" || fail "(builds) run.json is not valid or lacks the stop reason"
sleep 0.5
pgrep -f "$tmp/" >/dev/null && fail "(builds) builders or compilers still alive: $(pgrep -af "$tmp/")"
exit 0
