#!/usr/bin/env bash
# tests/optimize_rows.sh KREWRITE LLM_SERVER: the search uses the reduction passes, on
# the CPU emulator, without nvcc (the pruning's note path: ranked by the model alone).
#  1. The heuristic's dry run on softmax leads with the row grid, block_reduce and warp_reduce
#     fused with online_softmax; layernorm's with welford; matvec's has warp_reduce among its first
#     variants; matmul's offers no reduction pass.
#  2. One heuristic round on softmax: the row grid goes through the pruning (one entry in run.json,
#     the kept ones the cluster splits that keep the row on chip, ranked 1 and 2), and the kept
#     schedules are verified.
#  3. The LLM prompt (dry run, no request) names the reduction passes with their parameters, when
#     they apply, an example line and the row nest; on matmul it names no row nest. Then one round
#     against the scripted local server: a block_reduce + online_softmax recipe is verified.
set -uo pipefail
kr=$1
server=$2
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
spid=
cleanup() { [ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "optimize_rows: $*" >&2; exit 1; }
export CUDACXX=/nonexistent/krewrite-test/nvcc

# ---- 1. the heuristic's first ideas --------------------------------------------------------------------
dry() { "$kr" optimize "examples/$1/problem.lua" --dry-run --branch "$2" >"$tmp/$1.dry" 2>&1 || fail "(1) $1: dry run failed"; }
dry softmax 2
head -n1 "$tmp/softmax.dry" | grep -q '^block_reduce on softmax: a grid of' || fail "(1) softmax: the row grid does not lead"
sed -n 2p "$tmp/softmax.dry" | grep -q '^block_reduce block_reduce,row,threads=256+online_softmax+row_cache on softmax: .*online_softmax fuses its max loop.*row_cache keeps a row' \
  || fail "(1) softmax: block_reduce + online_softmax + row_cache is not first"
sed -n 3p "$tmp/softmax.dry" | grep -q '^block_reduce block_reduce,row,threads=256+online_softmax on softmax' \
  || fail "(1) softmax: block_reduce + online_softmax is not second"
dry layernorm 2
sed -n 2,3p "$tmp/layernorm.dry" | grep -c '+welford on layernorm: .*welford fuses' | grep -q '^2$' || fail "(1) layernorm: welford not first"
dry matvec 2
sed -n 2,3p "$tmp/matvec.dry" | grep -q '^block_reduce warp_reduce,threads=256 on matvec' || fail "(1) matvec: no warp_reduce first"
dry matmul 100
grep -Eq 'block_reduce|warp_reduce|online_softmax|welford|split_rows' "$tmp/matmul.dry" && fail "(1) matmul: a reduction pass offered"
head -n1 "$tmp/matmul.dry" | grep -q '^tile on matmul' || fail "(1) matmul: the tile grid does not lead"

# ---- 2. one heuristic round: the row grid through the pruning ---------------------------------------------
"$kr" optimize examples/softmax/problem.lua --rounds 1 --branch 2 --jobs 2 --out "$tmp/h" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ $rc = 0 ] || { cat "$tmp/stderr"; fail "(2) exit $rc"; }
grep -Eq "round 1: block_reduce on softmax: (20|34) schedules" "$tmp/stderr" || { cat "$tmp/stderr"; fail "(2) no pruning summary"; }
python3 - "$tmp/h/run.json" <<'PY' || fail "(2) run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
r = t["rounds"][0]
p = [x for x in r["pruning"] if x["idea"] == "block_reduce on softmax"]
assert len(p) == 1, r["pruning"]
kept = [c for c in p[0]["candidates"] if c["verdict"] == "kept"]
# softmax's 65536-long rows: the grid holds the cluster splits, each with its block's part kept on chip
cl = [c["label"] for c in p[0]["candidates"] if ",cluster" in c["label"]]
assert sorted(cl) == sorted(["split_rows,parts=%d,cluster%s+row_cache" % (n, f) for n in (4, 8) for f in ("+online_softmax", "")]), cl
assert [c["rank"] for c in kept] == [1, 2], kept
# a row too long for one block's chip memory: the model ranks its cluster splits, each block's part
# kept on chip (the row read once), first; without online_softmax, which saves no read once the
# row is kept and costs the write sweep an exponential
assert [c["label"] for c in kept] == ["split_rows,parts=%d,cluster+row_cache" % n for n in (4, 8)], kept
rows = [c for c in r["candidates"] if c["pass"] == "block_reduce"]
assert [c["model"]["label"] for c in rows] == [c["label"] for c in kept], rows
assert all(c["status"] == "verified" for c in rows), [(c["status"], c.get("error")) for c in rows]
assert all("row_cache" in c["recipe"] and "online_softmax" not in c["recipe"] for c in rows), rows
PY

# ---- 3. the LLM prompt and one scripted round ---------------------------------------------------------------
export KREWRITE_LLM_MODEL=test KREWRITE_LLM_API_KEY=sk-test KREWRITE_LLM_RETRIES=0 KREWRITE_LLM_URL=http://127.0.0.1:9/v1
"$kr" optimize examples/softmax/problem.lua --proposer llm --dry-run >"$tmp/prompt" 2>&1 || fail "(3) prompt dry run failed"
for w in '## Reduction passes' 'row nest (one block per row' 'softmax: a row reduction: the reduction passes' \
         'block_reduce { threads = T, layout = "auto"|"row"|"column" }' 'warp_reduce { threads = T }' \
         'online_softmax (no parameters' 'welford (no parameters' 'k:apply("block_reduce", { threads = 256 })' \
         'k:apply("online_softmax")' '^block_reduce: ' '^warp_reduce: ' '^online_softmax: ' '^welford: ' \
         'layout         string (auto|row|column)'; do
  grep -q -- "$w" "$tmp/prompt" || fail "(3) the prompt lacks: $w"
done
if "$kr" passes 2>/dev/null | grep -q split_rows; then
  grep -q 'split_rows { parts = P }' "$tmp/prompt" || fail "(3) the prompt lacks split_rows"
  grep -q 'with cluster = true and P <= 16' "$tmp/prompt" || fail "(3) the prompt lacks split_rows' cluster"
  grep -q 'with resident = true any P' "$tmp/prompt" || fail "(3) the prompt lacks split_rows' resident blocks"
else
  grep -q 'split_rows' "$tmp/prompt" && fail "(3) the prompt names split_rows, which does not exist"
fi
"$kr" optimize examples/matmul/problem.lua --proposer llm --dry-run >"$tmp/prompt_mm" 2>&1 || fail "(3) matmul prompt failed"
grep -q 'a row reduction: the reduction passes' "$tmp/prompt_mm" && fail "(3) matmul called a row reduction"
grep -q 'no row nest (reduction passes do not apply)' "$tmp/prompt_mm" && fail "(3) matmul's nest hidden by the row nest's reason"

python3 - "$tmp/script" <<'PY'
import json, sys
k = 'local k = kr.kernel("softmax")\nk:apply("block_reduce", { threads = 128 })\nk:apply("online_softmax")'
body = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps(
    {"ideas": [{"reason": "a block per row, max and sum in one sweep", "recipe": k}]})}}]})
open(sys.argv[1], "w").write("respond 200\nheader Content-Type: application/json\nbody %s\n" % body)
PY
"$server" "$tmp/script" "$tmp/log" 60 >"$tmp/port" &
spid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(head -n1 "$tmp/port")
[ -n "$port" ] || fail "(3) the scripted server did not start"
export KREWRITE_LLM_URL=http://127.0.0.1:$port/v1/chat/completions
"$kr" optimize examples/softmax/problem.lua --proposer llm --rounds 1 --out "$tmp/l" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ $rc = 0 ] || { cat "$tmp/stderr"; fail "(3) exit $rc"; }
grep -q '## Reduction passes' "$tmp/log" || fail "(3) the prompt sent lacks the reduction passes"
python3 - "$tmp/l/run.json" <<'PY' || fail "(3) the LLM's reduction recipe was not verified"
import json, sys
t = json.load(open(sys.argv[1]))
c = t["rounds"][0]["candidates"]
assert len(c) == 1 and c[0]["status"] == "verified", c
assert "online_softmax" in c[0]["recipe"], c[0]["recipe"]
PY
exit 0
