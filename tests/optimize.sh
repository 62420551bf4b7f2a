#!/usr/bin/env bash
# tests/optimize.sh KREWRITE EXAMPLE [ROUNDS]: `krewrite optimize` on examples/EXAMPLE with a small
# search (ROUNDS rounds, default 2; 2 parameterisations per idea, 1 seed kept) on the CPU emulator.
# Passes when it
# exits 0 with at least one verified candidate, run.json parses as JSON and lists a verified
# candidate and a best, every candidate has a reason, and `krewrite replay DIR/best.json`
# rebuilds a kernel equal to the best recipe applied with `krewrite apply`; PyTorch's time given
# with --pytorch-ms is recorded, stage seconds are there for every candidate, and each candidate
# was applied once (run.json's recipe_applies).
set -uo pipefail
kr=$1
ex=$2
rounds=${3:-2}
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize $ex: $*" >&2; exit 1; }
"$kr" optimize "examples/$ex/problem.lua" --rounds "$rounds" --branch 2 --keep 1 --out "$tmp/out" --pytorch-ms 0.25 \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 0 ] || fail "exit $rc"
grep -q "^round 1 candidate 1/" "$tmp/stderr" || fail "no progress line on stderr"
python3 -m json.tool "$tmp/out/run.json" >/dev/null || fail "run.json is not valid JSON"
python3 - "$tmp/out/run.json" <<'PY' || fail "run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
cands = [c for r in t["rounds"] for c in r["candidates"]]
assert cands, "no candidates"
assert any(c["status"] == "verified" for c in cands), "no verified candidate"
for c in cands:
    assert c["reason"] and "\n" not in c["reason"], c["id"]
    assert c["recipe"] and c["idea"], c["id"]
    if c["status"] == "verified":
        assert c["verification"]["failed"] == 0 and c["verification"]["passed"] > 0, c["id"]
        assert c["diff"].startswith("--- a/"), c["id"]
    # each stage's seconds: made once (apply), then built, verified; timed only on a GPU
    st = c["stages"]
    assert st["apply_s"] is not None and st["apply_s"] >= 0, (c["id"], st)
    if c["status"] in ("verified", "failed"):
        assert st["build_s"] > 0 and st["verify_s"] > 0, (c["id"], st)
    if c["status"] == "recipe error":
        assert st["build_s"] is None and st["verify_s"] is None, (c["id"], st)
    if not t["timed"]:
        assert st["time_s"] is None and c["timing_note"] == "not timed: no GPU", (c["id"], st)
assert t["best"] and t["best_log"]["output"]["sha256"], "no best"
assert t["pytorch"] == {"median_ms": 0.25, "label": "PyTorch"}, t["pytorch"]
assert t["best_steps"] is None or t["timed"], "steps timed without a GPU"
# A candidate is made once: one apply for each candidate the pruning did not make, one for each
# schedule the pruning weighed (the kept ones are candidates, not applied again), and round 1's
# seed, the original; later rounds start from their seeds' runs as the candidates made them.
made = sum(1 for c in cands if c.get("model") is None)
weighed = sum(len(p["candidates"]) for r in t["rounds"] for p in r["pruning"])
assert t["recipe_applies"] == made + weighed + 1, (t["recipe_applies"], made, weighed)
PY
best=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["id"])' "$tmp/out/run.json")
"$kr" replay "$tmp/out/best.json" -o "$tmp/replayed.cu" || fail "replay of best.json failed"
"$kr" apply "$tmp/out/cand-$best.lua" "examples/$ex/kernel.cu" -o "$tmp/applied.cu" \
  || fail "apply of the best recipe failed"
cmp -s "$tmp/replayed.cu" "$tmp/applied.cu" || fail "replayed kernel differs from the best recipe's"
cmp -s "$tmp/replayed.cu" "examples/$ex/kernel.cu" && fail "the best kernel is the original"
exit 0
