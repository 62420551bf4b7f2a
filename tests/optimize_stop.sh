#!/usr/bin/env bash
# tests/optimize_stop.sh KREWRITE CASE: `krewrite optimize` stops for the right reason, on the
# fixtures of tests/fixtures/optimize_stop (the CPU emulator, one launch timeout of 1 s). CASE:
#  no_build, crash, hang: the original does not build (a call to an undeclared function), writes
#    past the end of its output, or never finishes. The search stops before round 1: exit 1, an
#    error naming the problem spec and the original's first error with its place, "stopped:
#    original failed" in the summary, run.json valid with that stop reason and the error, no
#    round, no candidate recipe, no best.json;
#  no_candidate_builds: the original builds and runs, but every candidate of round 1 fails to
#    build: exit 1, the search ends after that round (of 3) with the stop reason "every candidate
#    failed to build" and candidate 1's build error (file:line:col and message) in the summary
#    and in run.json.
set -uo pipefail
kr=$1
case=$2
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_stop $case: $*" >&2; exit 1; }
dir=tests/fixtures/optimize_stop
problem=$dir/$case.lua
"$kr" optimize "$problem" --rounds 3 --timeout 1 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 1 ] || fail "exit $rc, wanted 1"
python3 -m json.tool "$tmp/out/run.json" >/dev/null || fail "run.json is not valid JSON"

if [ "$case" = no_candidate_builds ]; then
  grep -q "^the original: builds and runs on the CPU emulator" "$tmp/stderr" \
    || fail "no line saying the original builds and runs"
  grep -qF "stopped: every candidate failed to build: $dir/$case.cu (after $tmp/out/cand-1.lua):" \
    "$tmp/stdout" || fail "the summary lacks the stop reason and candidate 1's build error"
  python3 - "$tmp/out/run.json" "$dir/$case.cu" <<'PY' || fail "run.json lacks what it should hold"
import json, re, sys
t = json.load(open(sys.argv[1]))
assert t["stop_reason"] == "every candidate failed to build", t["stop_reason"]
assert len(t["rounds"]) == 1, "the search went on after a round in which nothing built"
cands = t["rounds"][0]["candidates"]
assert len(cands) >= 2, cands
for c in cands:
    assert c["status"] == "build failed", (c["id"], c["status"], c["error"])
    assert re.match(re.escape(sys.argv[2]) + r" \(after .*cand-%d\.lua\):\d+:\d+: error: " % c["id"],
                    c["error"]), c["error"]
assert t["stop_error"] == cands[0]["error"], t["stop_error"]
assert t["best"] is None, t["best"]
PY
  exit 0
fi

case $case in
  no_build) what="does not build for the CPU emulator: $dir/no_build.cu:7:23: error: 'twice' was not declared" ;;
  crash) what="does not run on the CPU emulator: kernel 'scale' wrote out of bounds: buffer 'out'"
    grep -qF "at $dir/crash.cu:7" "$tmp/stderr" || fail "the error does not name the line that wrote" ;;
  hang) what="does not run on the CPU emulator: kernel 'scale' did not finish within 1 s" ;;
  *) fail "unknown case" ;;
esac
grep -qF "$problem: error: the original kernel $what" "$tmp/stderr" \
  || fail "stderr lacks '$problem: error: the original kernel $what'"
grep -qF "stopped: original failed: the original kernel $what" "$tmp/stdout" \
  || fail "the summary lacks the stop reason and the original's error"
grep -q "^round " "$tmp/stderr" && fail "a round was run"
ls "$tmp/out" | grep -q '^cand-' && fail "candidates were written: $(ls "$tmp/out")"
[ -e "$tmp/out/best.json" ] && fail "a best.json was written"
python3 - "$tmp/out/run.json" "$what" <<'PY' || fail "run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["stop_reason"] == "original failed", t["stop_reason"]
assert t["stop_error"].startswith("the original kernel " + sys.argv[2]), t["stop_error"]
assert t["rounds"] == [], t["rounds"]
assert t["best"] is None and t["best_log"] is None, t["best"]
PY
exit 0
