#!/usr/bin/env bash
# tests/optimize_prune.sh KREWRITE: the resource pruning of `krewrite optimize` on matmul, one
# round on the CPU emulator. Two checks:
#  1. without nvcc (CUDACXX names no executable) the pruning is skipped with a note in run.json
#     and on stderr, and the schedule grid is still ranked and its best verified;
#  2. with nvcc (skipped when there is none): every schedule of the grid has a verdict, the kept
#     ones were compiled and fit (no spills, within 64K registers a block), the timed candidates
#     are the kept ones in the model's order, and the report page lists the pruned schedules.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_prune: $*" >&2; exit 1; }
problem=examples/matmul/problem.lua

# ---- 1. no nvcc: a note, not silence -------------------------------------------------------------
CUDACXX=/nonexistent/krewrite-test/nvcc "$kr" optimize "$problem" --rounds 1 --branch 1 --out "$tmp/none" \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stderr"
[ $rc = 0 ] || fail "(1) exit $rc"
grep -q "resource pruning skipped" "$tmp/stderr" || fail "(1) no note on stderr"
python3 - "$tmp/none/run.json" <<'PY' || fail "(1) run.json lacks the note"
import json, sys
t = json.load(open(sys.argv[1]))
p = t["rounds"][0]["pruning"]
assert len(p) == 1 and p[0]["idea"] == "tile on matmul", p
assert "resource pruning skipped" in p[0]["note"], p[0]["note"]
kept = [c for c in p[0]["candidates"] if c["verdict"] == "kept"]
assert len(kept) == 1 and kept[0]["resources"] is None, kept
assert all(c["verdict"] in ("kept", "ranked out") for c in p[0]["candidates"])
tiles = [c for c in t["rounds"][0]["candidates"] if c["pass"] == "tile"]
assert len(tiles) == 1 and tiles[0]["status"] == "verified", tiles
assert tiles[0]["model"]["label"] == kept[0]["label"], tiles[0]["model"]
PY

# ---- 2. with nvcc --------------------------------------------------------------------------------
command -v "${CUDACXX:-nvcc}" >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc: part 2 skipped"; exit 77; }
"$kr" optimize "$problem" --rounds 1 --branch 2 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stderr"
[ $rc = 0 ] || fail "(2) exit $rc"
grep -q "resource pruning skipped" "$tmp/stderr" && fail "(2) pruning skipped with nvcc present"
grep -q "round 1: tile on matmul: 144 schedules" "$tmp/stderr" || fail "(2) no summary line on stderr"
python3 - "$tmp/out/run.json" <<'PY' || fail "(2) run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
p = t["rounds"][0]["pruning"][0]
assert p["note"] is None, p["note"]
assert p["variants"] == len(p["candidates"]) + len(p["refused_by_checks"]) == 144, p["variants"]
assert p["refused_by_checks"] and all(r["why"] for r in p["refused_by_checks"])
kept = [c for c in p["candidates"] if c["verdict"] == "kept"]
assert [c["rank"] for c in kept] == [1, 2], kept
for c in kept:
    r = c["resources"]
    assert r and r["spill_stores"] == 0 and r["spill_loads"] == 0, c
    assert r["registers"] * c["threads"] <= 65536 and r["smem"] <= 48 * 1024, c
    assert c["score"] <= c["bound"] + 1e-9, c
for c in p["candidates"]:
    assert c["verdict"] in ("kept", "refused", "ranked out", "not compiled"), c
    if c["verdict"] != "kept":
        assert c["why"], c
tiles = [c for c in t["rounds"][0]["candidates"] if c["pass"] == "tile"]
assert [c["model"]["label"] for c in tiles] == [c["label"] for c in kept], tiles
assert all(c["status"] == "verified" for c in tiles), tiles
PY
"$kr" report "$tmp/out/run.json" -o "$tmp/report.html" >/dev/null || fail "(2) report failed"
grep -q 'id="pruning"' "$tmp/report.html" || fail "(2) the report lacks the pruned schedules"
grep -q "refused by the schedule checks" "$tmp/report.html" || fail "(2) the report lacks the refusals"
exit 0
