#!/usr/bin/env bash
# tests/optimize_interrupt_fill.sh KREWRITE: Ctrl-C while a GPU child fills a candidate's inputs
# (`krewrite optimize --device cuda` on the fake driver, tests/unit/cuda_fake_driver.c, whose fill
# takes a minute while $tmp/slow exists; the original's check runs before the file is made, at
# full speed). The search stops within seconds, not when the fill ends: the GPU child is killed,
# the candidate is recorded as interrupted with a message saying so, run.json is valid with the
# stop reason "interrupted", the exit is not the signal's, and nothing of the run is left running.
# Exit 77 without nvcc or cc.
set -uo pipefail
kr=$1
source "$(dirname "$0")/fake_gpu.sh"
fake_gpu optimize_interrupt_fill
export KR_CUDA_LIB=$tmp/libcuda.so.1 KR_FAKE_CUDA_ELF=1 KR_FAKE_CUDA_SLOW_FILL=$tmp/slow
XDG_CACHE_HOME="$tmp/cache" "$kr" optimize examples/vector_add/problem.lua --device cuda --rounds 2 --jobs 1 \
  --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
for _ in $(seq 1200); do   # the original checked: from now on every fill is slow
  grep -q "the original: builds and runs" "$tmp/stderr" && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
grep -q "the original: builds and runs" "$tmp/stderr" || { cat "$tmp/stderr"; fail "the original was not checked"; }
touch "$tmp/slow"
for _ in $(seq 1200); do
  grep -q "fake driver: a slow fill begins" "$tmp/stderr" && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
grep -q "fake driver: a slow fill begins" "$tmp/stderr" || { cat "$tmp/stderr"; fail "no candidate's fill began"; }
kill -INT $pid 2>/dev/null || fail "the run ended before it could be interrupted"
t0=$(date +%s)
wait $pid
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc -ge 128 ] && fail "killed by the signal (exit $rc) instead of stopping"
[ $(( $(date +%s) - t0 )) -le 10 ] || fail "the run took more than 10 s to stop: it waited for the fill"
grep -q "stopped: interrupted" "$tmp/stdout" || fail "the summary does not say it was interrupted"
python3 - "$tmp/out/run.json" <<'PY' || fail "run.json is not valid or does not record the interruption"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["stop_reason"] == "interrupted", t["stop_reason"]
cands = [c for r in t["rounds"] for c in r["candidates"]]
assert cands, "no candidate recorded"
last = cands[-1]
assert last["status"] == "interrupted", last["status"]
assert "interrupted (Ctrl-C)" in (last["error"] or ""), last["error"]
PY
sleep 0.5
pgrep -f "$tmp/" >/dev/null && fail "processes of the run are still alive: $(pgrep -af "$tmp/")"
exit 0
