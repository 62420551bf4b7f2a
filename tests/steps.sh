#!/usr/bin/env bash
# tests/steps.sh KREWRITE MODE: `krewrite bench --steps` (every prefix of a recipe, verified, then
# timed) and `krewrite report PROBLEM --recipe R [--timings T]` (the page of those steps).
#   emulator  examples/vector_add/recipe.lua (3 passes) without a GPU: 4 rows, the passes in the
#             order the recipe applied them (its audit log's), each step verified on the emulator,
#             each "not timed: no GPU"; the text table says the same
#   failing   tests/steps/aliased: the step whose pass is wrong for the problem fails verification
#             with the reason, so does the step after it, and neither is timed; exit 1
#   empty     a recipe that applies no pass: one row, the original
#   fake_gpu  tests/steps/vector_add.lua on the fake driver (tests/unit/cuda_fake_driver.c, with
#             nvcc's cubins): the original and the steps it can run timed in one process, with
#             ratios; the step it cannot run reported "not timed" with why; then the page drawn
#             from those timings (exit 77 without nvcc or cc)
#   report    the page of examples/vector_add/recipe.lua's steps from emulator timings and without
#             timings: the steps table, the chart, each diff named by file and pass; timings of
#             another recipe are refused
# Runs are made without a GPU whatever the machine has (KR_CUDA_LIB names no library), except the
# fake driver's.
set -uo pipefail
kr=$1
mode=$2
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "steps $mode: $*" >&2; exit 1; }
va=examples/vector_add/problem.lua
export KR_CUDA_LIB=/nonexistent/libcuda.so.1

# steps RC OUT ARGS...: bench --steps with ARGS, JSON to OUT; fails unless it exits RC.
steps() {
  local want=$1 out=$2
  shift 2
  "$kr" bench "$@" --steps --json >"$out" 2>"$tmp/stderr"
  local rc=$?
  [ "$rc" = "$want" ] || { cat "$out" "$tmp/stderr" >&2; fail "bench --steps $* exited $rc, wanted $want"; }
}

case $mode in
emulator)
  steps 0 "$tmp/steps.json" $va --recipe examples/vector_add/recipe.lua
  "$kr" apply examples/vector_add/recipe.lua examples/vector_add/kernel.cu --log "$tmp/log.json" >/dev/null ||
    fail "apply failed"
  python3 - "$tmp/steps.json" "$tmp/log.json" <<'PY' || fail "the steps are not what they should be"
import json, sys
s, log = (json.load(open(f)) for f in sys.argv[1:3])
rows, applied = s["steps"], [p["pass"] for p in log["passes"]]
assert len(rows) == len(applied) + 1 == 4, (len(rows), applied)
assert [r["pass"] for r in rows] == [None] + applied == [None, "restrict", "vectorize", "ldg"], rows
assert [r["step"] for r in rows] == [0, 1, 2, 3]
assert rows[0]["status"] == "original" and rows[0]["verification"] is None
for r, p in zip(rows[1:], log["passes"]):
    assert r["status"] == "verified", r
    assert r["verification"]["passed"] > 0 and r["verification"]["failed"] == 0, r
    assert r["given"] == p["given"] and r["kernel"] == p["kernel"] == "vector_add", r
for r in rows:
    assert r["timing_note"] == "not timed: no GPU" and r["times"] is None and r["vs_original"] is None, r
assert s["timed"] is False and s["verified_on"] == "cpu" and s["verified"] == 3 and s["timed_steps"] == 0, s
assert s["no_gpu"].startswith("no GPU: "), s["no_gpu"]
# the audit log's own diffs name the file and the pass
names = [p["diff"].split("\n")[:2] for p in log["passes"]]
assert names == [["--- kernel.cu, original", "+++ kernel.cu, after pass 1 (restrict)"],
                 ["--- kernel.cu, after pass 1 (restrict)", "+++ kernel.cu, after pass 2 (vectorize)"],
                 ["--- kernel.cu, after pass 2 (vectorize)", "+++ kernel.cu, after pass 3 (ldg)"]], names
PY
  "$kr" bench $va --recipe examples/vector_add/recipe.lua --steps >"$tmp/steps.txt" 2>&1 ||
    { cat "$tmp/steps.txt"; fail "the text table's run failed"; }
  python3 - "$tmp/steps.txt" <<'PY' || { cat "$tmp/steps.txt"; fail "the text table is not what it should be"; }
import re, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l for l in lines if re.match(r"^ +[0-9]+  ", l)]
assert len(rows) == 4, rows
assert [r.split()[1] for r in rows] == ["original", "restrict", "vectorize", "ldg"], rows
assert all(r.rstrip().endswith("not timed: no GPU") for r in rows), rows
assert all(" passed " in r for r in rows[1:]) and " reference " in rows[0], rows
assert any(l.startswith("verified on the CPU emulator; not timed: no GPU") for l in lines), lines
PY
  ;;
failing)
  steps 1 "$tmp/steps.json" tests/steps/aliased/problem.lua --recipe tests/steps/aliased/recipe.lua
  python3 - "$tmp/steps.json" <<'PY' || fail "the failing step is not reported as it should be"
import json, sys
rows = json.load(open(sys.argv[1]))["steps"]
assert [(r["pass"], r["status"]) for r in rows] == [(None, "original"), ("ldg", "verified"),
                                                    ("accumulate", "failed"), ("unroll", "failed")], rows
for r in rows[2:]:
    v = r["verification"]
    assert v["failed"] > 0 and v["passed"] == 0, r
    assert "'y': relative L2 error" in v["first_failure"] and "exceeds the tolerance" in v["first_failure"], v
    assert r["timing_note"] == "not timed: failed verification" and r["times"] is None, r
assert rows[1]["verification"]["failed"] == 0 and rows[1]["timing_note"] == "not timed: no GPU", rows[1]
PY
  out=$("$kr" bench tests/steps/aliased/problem.lua --recipe tests/steps/aliased/recipe.lua --steps 2>&1)
  [ $? = 1 ] || { echo "$out"; fail "the text run did not exit 1"; }
  grep -qE '^ +2  accumulate \{\} +FAILED [0-9]+ of [0-9]+ +not timed: failed verification$' <<<"$out" ||
    { echo "$out"; fail "the text table lacks the failed step"; }
  grep -qF "'y': relative L2 error" <<<"$out" || { echo "$out"; fail "the text table lacks why it failed"; }
  ;;
empty)
  steps 0 "$tmp/steps.json" $va --recipe examples/vector_add/identity.lua
  python3 - "$tmp/steps.json" <<'PY' || fail "a recipe without passes is not one row"
import json, sys
s = json.load(open(sys.argv[1]))
assert [r["status"] for r in s["steps"]] == ["original"] and s["verified"] == 0, s["steps"]
PY
  ;;
fake_gpu)
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || exit 77
  command -v cc >/dev/null || exit 77
  export PATH=$PATH:/usr/local/cuda/bin
  cc -shared -fPIC -O1 -ffp-contract=off -I . -o "$tmp/libcuda.so.1" tests/unit/cuda_fake_driver.c ||
    fail "cannot build the fake driver"
  export KR_CUDA_LIB=$tmp/libcuda.so.1 KR_FAKE_CUDA_ELF=1
  # restrict's step cannot run on the fake, so not every step is timed: exit 1.
  steps 1 "$tmp/steps.json" $va --recipe tests/steps/vector_add.lua --arch sm_90 --reps 5 --min-seconds 0
  python3 - "$tmp/steps.json" <<'PY' || fail "the timed steps are not what they should be"
import json, sys
s = json.load(open(sys.argv[1]))
rows = s["steps"]
assert s["timed"] is True and s["gpu"] == "Fake H200" and s["arch"] == "sm_90", s
assert [r["pass"] for r in rows] == [None, "ldg", "unroll", "restrict"], rows
assert all(r["status"] in ("original", "verified") for r in rows), rows
o = rows[0]["times"]["median_ms"]
assert o > 0 and rows[0]["vs_original"] == 1 and rows[0]["vs_previous"] is None, rows[0]
for prev, r in zip(rows[:2], rows[1:3]):
    t = r["times"]
    assert t["median_ms"] > 0 and t["reps"] >= 5 and t["p10_ms"] <= t["median_ms"] <= t["p90_ms"], r
    assert abs(r["vs_original"] - o / t["median_ms"]) < 1e-3 * r["vs_original"], r
    assert abs(r["vs_previous"] - prev["times"]["median_ms"] / t["median_ms"]) < 1e-3 * r["vs_previous"], r
    assert r["previous_step"] == prev["step"] and r["regression"] == (r["vs_previous"] < 0.99), r
r = rows[3]
assert r["times"] is None and r["timing_note"].startswith("not timed: the candidate failed to run"), r
assert s["timed_steps"] == 2 and s["verified"] == 3, s
PY
  "$kr" report $va --recipe tests/steps/vector_add.lua --timings "$tmp/steps.json" -o "$tmp/page.html" \
    >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "report failed"; }
  grep -qF "report: $tmp/page.html (4 steps: the original and 3 passes, 3 verified, 2 timed)" "$tmp/report.log" ||
    { cat "$tmp/report.log"; fail "report did not say what it wrote"; }
  python3 - "$tmp/page.html" <<'PY' || fail "the page lacks the timed steps"
import re, sys
h = open(sys.argv[1]).read()
chart = h[h.index('<svg id="steps-chart"'):]
chart = chart[:chart.index("</svg>")]
assert chart.count("<rect x=") == 3 + 2, "a bar for the original and each timed step, two legend swatches"
assert "stroke-dasharray" in chart and ">not timed<" in chart, "the original's line, restrict's step"
assert "Fake H200" in h and h.count("<tr") >= 4
PY
  ;;
report)
  steps 0 "$tmp/steps.json" $va --recipe examples/vector_add/recipe.lua
  "$kr" report $va --recipe examples/vector_add/recipe.lua --timings "$tmp/steps.json" -o "$tmp/page.html" \
    >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "report failed"; }
  "$kr" report $va --recipe examples/vector_add/recipe.lua -o - >"$tmp/bare.html" 2>"$tmp/report.log" ||
    { cat "$tmp/report.log"; fail "report without timings failed"; }
  python3 - "$tmp/page.html" "$tmp/bare.html" <<'PY' || fail "the page is not what it should be"
import html, re, sys
page, bare = (open(f).read() for f in sys.argv[1:3])
for h in (page, bare):
    table = h[h.index('<table id="steps">'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r"<tr[ >].*?</tr>", table, re.S)[1:]
    assert len(rows) == 4, rows
    for i, name in enumerate(["restrict", "vectorize", "ldg"], 1):
        assert '<a href="#step-%d"><code>%s</code></a>' % (i, name) in rows[i], rows[i]
    assert '<svg id="steps-chart"' in h
    # each diff names the file and the pass on both sides, never a/0, b/1
    files = re.findall(r'<span class="file">(.*?)</span>', h)
    assert files == ["--- kernel.cu, original", "+++ kernel.cu, after pass 1 (restrict)",
                     "--- kernel.cu, after pass 1 (restrict)", "+++ kernel.cu, after pass 2 (vectorize)",
                     "--- kernel.cu, after pass 2 (vectorize)", "+++ kernel.cu, after pass 3 (ldg)"], files
    assert "a/0" not in h and "b/1" not in h
    assert '<h3 id="step-3">Step 3: <code>ldg</code>' in h
assert page.count("verified: ") == 3 and "not timed: no GPU" in page
assert "not timed: no timings given" in bare and "verified: " not in bare
PY
  # Timings of another recipe (or source) are refused, naming the first step that differs.
  out=$("$kr" report $va --recipe examples/vector_add/identity.lua --timings "$tmp/steps.json" -o "$tmp/x.html" 2>&1)
  [ $? = 1 ] && grep -qF "$tmp/steps.json: error: these timings are not of examples/vector_add/identity.lua on this problem: they hold 4 steps, the recipe makes 1" <<<"$out" ||
    { echo "$out"; fail "timings of another recipe were not refused"; }
  [ ! -e "$tmp/x.html" ] || fail "a refused report wrote a page"
  sed 's/"width": 4/"width": 2/' "$tmp/steps.json" >"$tmp/other.json"
  out=$("$kr" report $va --recipe examples/vector_add/recipe.lua --timings "$tmp/other.json" -o - 2>&1)
  [ $? = 1 ] && grep -qF 'their step 2 is vectorize {"width":2} on vector_add, the recipe'"'"'s is vectorize {"width":4} on vector_add' <<<"$out" ||
    { echo "$out"; fail "timings of other arguments were not refused"; }
  ;;
*) fail "unknown mode" ;;
esac
exit 0
