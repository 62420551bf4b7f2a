#!/usr/bin/env bash
# tests/optimize_jobs.sh KREWRITE: `krewrite optimize --jobs` and the progress bar.
# 1. The same search with --jobs 1 and --jobs 2, each with an empty build cache of its own: the
#    candidates, their statuses, diffs and resource reports agree; with --jobs 2 every candidate
#    was built by the parallel phase (its compile report says the serial phase found the cubin
#    in the cache), with --jobs 1 none was.
# 2. Under a pseudo-terminal (script(1)) stderr carries the progress bar; in a pipe it does not.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_jobs: $*" >&2; exit 1; }
for j in 1 2; do
  XDG_CACHE_HOME="$tmp/cache$j" "$kr" optimize examples/vector_add/problem.lua --rounds 1 \
    --branch 2 --keep 1 --jobs $j --out "$tmp/out$j" >"$tmp/stdout$j" 2>"$tmp/stderr$j" \
    || { cat "$tmp/stderr$j"; fail "--jobs $j exited $?"; }
done
grep -q $'\r' "$tmp/stderr2" && fail "a progress bar was drawn into a pipe"
python3 - "$tmp/out1/run.json" "$tmp/out2/run.json" <<'PY' || fail "the two runs disagree"
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
assert runs[0]["jobs"] == 1 and runs[1]["jobs"] == 2
cands = [[c for r in t["rounds"] for c in r["candidates"]] for t in runs]
assert len(cands[0]) == len(cands[1]) and len(cands[0]) >= 3, [len(c) for c in cands]
built = 0
for a, b in zip(*cands):
    for k in ("recipe", "status", "diff", "params"):
        assert a[k] == b[k], (a["id"], k)
    ka, kb = a["compile"], b["compile"]
    if ka and "kernels" in ka:
        assert ka["kernels"] == kb["kernels"], a["id"]
        assert ka["kernels"][0]["registers"] > 0, a["id"]
        assert ka["from_cache"] is False, ("--jobs 1 found a cubin it had not built", a["id"])
        assert kb["from_cache"] is True, ("--jobs 2 did not build candidate in parallel", b["id"])
        built += 1
assert built >= 3, built
PY
# The bar: script(1) gives krewrite a terminal for stderr.
command -v script >/dev/null || fail "script(1) (util-linux) is missing"
script -qec "'$kr' optimize examples/vector_add/problem.lua --rounds 1 --branch 1 --jobs 2 --out '$tmp/out3' 2>&1 >/dev/null" \
  "$tmp/typescript" >/dev/null </dev/null || fail "optimize under a terminal failed"
grep -q 'round 1 \[#*\.*\] [0-9]*/[0-9]* compiling' "$tmp/typescript" || fail "no compiling bar on the terminal"
grep -q 'round 1 \[#*\.*\] [0-9]*/[0-9]* verifying and timing' "$tmp/typescript" \
  || fail "no verifying bar on the terminal"
grep -q '^round 1 candidate 1/' "$tmp/stderr2" || fail "no candidate lines"
exit 0
