#!/usr/bin/env bash
# tests/optimize_gpu.sh KREWRITE: `krewrite optimize --device cuda --profile` on the GPU machine
# (ctest label gpu; exit 77, skipped, without a GPU or Nsight Compute). On examples/vector_add:
# the original is profiled and found memory-bandwidth-bound; candidates are verified on the GPU
# and timed; run.json has the profile, the times and a best with a speedup; the report renders.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
nvidia-smi >/dev/null 2>&1 || exit 77
{ command -v ncu || [ -x /usr/local/cuda/bin/ncu ]; } >/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_gpu: $*" >&2; exit 1; }
"$kr" optimize examples/vector_add/problem.lua --device cuda --profile --rounds 2 --branch 1 \
  --keep 1 --budget-minutes 4 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 0 ] || fail "exit $rc"
python3 - "$tmp/out/run.json" <<'PY' || fail "run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["timed"] is True and t["device"] == "cuda"
p = t["rounds"][0]["profile"]
assert p.get("class") == "memory-bandwidth-bound", p
cands = [c for r in t["rounds"] for c in r["candidates"]]
timed = [c for c in cands if c["speedup"] is not None]
assert timed, "nothing was timed"
for c in timed:
    assert c["times"]["original_median_ms"] > 0 and c["times"]["candidate_median_ms"] > 0, c["id"]
    assert c["compile"]["kernels"][0]["registers"] > 0, c["id"]
assert t["best"]["speedup"] == max(c["speedup"] for c in timed), t["best"]
PY
"$kr" report "$tmp/out/run.json" -o "$tmp/report.html" || fail "report failed"
grep -q 'id="speedup-chart"' "$tmp/report.html" || fail "the report has no chart"
exit 0
