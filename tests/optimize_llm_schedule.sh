#!/usr/bin/env bash
# tests/optimize_llm_schedule.sh KREWRITE LLM_SERVER: the LLM proposer speaks the schedule language,
# against the scripted local server (tests/llm_server.c) on matmul, on the CPU emulator.
#  1. Round 1's replies (the first and both follow-ups) name a schedule the nest refuses
#     (register_tile 16 x 16: 256 accumulators): each is rejected with a message saying so, in
#     run.json and on stderr, and the search goes on; round 2's reply, tile + register_tile, is
#     applied and verified. The prompts carry the nest, the schedule passes with their limits, and
#     round 2's the rejections. Each idea is applied once (run.json's recipe_applies).
#  2. Five rounds of schedule recipes: the prompts the builder produced stay under 50k tokens in
#     all (bytes / 4 of every message sent), and run.json's per-round token counts, estimated
#     because the server reports no usage, say so and add up to the same.
set -uo pipefail
kr=$1
server=$2
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
spid=
cleanup() { [ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "optimize_llm_schedule: $*" >&2; exit 1; }
problem=examples/matmul/problem.lua
export KREWRITE_LLM_MODEL=test KREWRITE_LLM_API_KEY=sk-test KREWRITE_LLM_RETRIES=0

start_server() {   # SCRIPT LOG PORTFILE
  "$server" "$1" "$2" 120 >"$3" &
  spid=$!
  for _ in $(seq 50); do [ -s "$3" ] && break; sleep 0.1; done
  port=$(head -n1 "$3")
  [ -n "$port" ] || fail "the scripted server did not start"
  export KREWRITE_LLM_URL=http://127.0.0.1:$port/v1/chat/completions
}

# ---- 1. a refused schedule, then a schedule that applies --------------------------------------------
python3 - "$tmp/script1" <<'PY'
import json, sys
def ok(ideas):
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps({"ideas": ideas})}}]})
    return "respond 200\nheader Content-Type: application/json\nbody %s\n" % body
k = 'local k = kr.kernel("matmul")\nk:apply("tile", { block = {64, 64}, k = 16 })\n'
refused = [{"reason": "a bigger register tile", "recipe": k.replace("{64, 64}", "{128, 128}") + 'k:apply("register_tile", { thread = {16, 16} })'}]
good = [{"reason": "64 x 64 tiles, 4 x 4 outputs a thread", "recipe": k + 'k:apply("register_tile", { thread = {4, 4} })'}]
with open(sys.argv[1], "w") as f:
    f.write(ok(refused) * 3)
    f.write(ok(good))
PY
start_server "$tmp/script1" "$tmp/log1" "$tmp/port1"
"$kr" optimize "$problem" --proposer llm --rounds 2 --keep 1 --out "$tmp/out1" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 0 ] || fail "(1) exit $rc"
grep -q "llm reply rejected: idea 1 names a schedule the nest of 'matmul' refuses: register_tile: 16 x 16 accumulators" "$tmp/stderr" \
  || fail "(1) no clear message on stderr"
python3 - "$tmp/out1/run.json" <<'PY' || fail "(1) run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
r1, r2 = t["rounds"]
msgs = [x for x in r1["rejected"] if "names a schedule the nest of 'matmul' refuses" in x]
assert len(msgs) == 3, r1["rejected"]
assert all("16 x 16 accumulators per thread" in x for x in msgs), msgs
assert r1["ideas"] == 0 and r1["candidates"] == [] and r1["requests"] == 3, r1
c = r2["candidates"]
assert len(c) == 1 and c[0]["status"] == "verified", c
assert 'register_tile' in c[0]["recipe"] and '"tile"' in c[0]["recipe"], c[0]["recipe"]
assert c[0]["verification"]["failed"] == 0 and c[0]["verification"]["passed"] > 0, c[0]
assert "register_tile" in c[0]["diff"] and "krewrite tile" in c[0]["diff"], "the schedule was not emitted"
assert t["best"]["id"] == c[0]["id"], t["best"]
# each reply's idea applied once, by the proposer's check; the candidate is that run, not a second apply
assert t["recipe_applies"] == 4, t["recipe_applies"]
PY
n=$(grep -c '^POST ' "$tmp/log1")
[ "$n" = 4 ] || fail "(1) the server saw $n requests, not 4"
for w in 'nest of matmul:' 'reduce    k in \[0, K)' '## Schedule passes' 'Limits (sm_90)' 'register_tile: TM x TN' \
         'stages         integer in \[2, 4\]' 'rejected in round 1: idea 1 names a schedule'; do
  grep -q -- "$w" "$tmp/log1" || fail "(1) the prompts lack: $w"
done
wait "$spid" 2>/dev/null
spid=

# ---- 2. five rounds stay under 50k prompt tokens ------------------------------------------------------
python3 - "$tmp/script2" <<'PY'
import json, sys
def ok(ideas):
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps({"ideas": ideas})}}]})
    return "respond 200\nheader Content-Type: application/json\nbody %s\n" % body
k = 'local k = kr.kernel("matmul")\n'
steps = ['k:apply("tile", { block = {32, 32}, k = 16 })',
         'k:apply("register_tile", { thread = {2, 2} })',
         'k:apply("double_buffer", { stages = 2 })']
rounds = [[steps[0]], steps[:2], steps[:3],
          ['k:apply("tile", { block = {64, 64}, k = 8 })', 'k:apply("register_tile", { thread = {4, 4} })'],
          ['k:apply("tile", { block = {64, 64}, k = 8 })', 'k:apply("register_tile", { thread = {4, 4} })',
           'k:apply("double_buffer", { stages = 3 })']]
with open(sys.argv[1], "w") as f:
    for i, lines in enumerate(rounds):
        f.write(ok([{"reason": "schedule step %d" % (i + 1), "recipe": k + "\n".join(lines)}]))
PY
start_server "$tmp/script2" "$tmp/log2" "$tmp/port2"
"$kr" optimize "$problem" --proposer llm --rounds 5 --keep 1 --out "$tmp/out2" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 0 ] || fail "(2) exit $rc"
python3 - "$tmp/out2/run.json" "$tmp/log2" <<'PY' || fail "(2) the prompts are too large or their count is wrong"
import json, re, sys
t = json.load(open(sys.argv[1]))
assert len(t["rounds"]) == 5, len(t["rounds"])
assert t["recipe_applies"] == 5, t["recipe_applies"]   # a round's idea, once (its check), seeds none
for r in t["rounds"]:
    assert [c["status"] for c in r["candidates"]] == ["verified"], r["candidates"]
    assert "estimate" in r["tokens_source"] and "bytes / 4" in r["tokens_source"], r["tokens_source"]
recorded = sum(r["tokens"]["prompt"] for r in t["rounds"])
# What the prompt builder produced, as the server received it: every message of every request.
log = open(sys.argv[2], encoding="utf-8", newline="").read()
sent, text = 0, ""
for req in re.split(r"^=== request \d+\n", log, flags=re.M)[1:]:
    body = json.loads(req.split("\r\n\r\n", 1)[1])
    sent += sum((len(m["content"].encode()) + 3) // 4 for m in body["messages"])
    text += "".join(m["content"] for m in body["messages"])
print("prompt tokens, five rounds: %d (run.json: %d)" % (sent, recorded))
assert sent < 50000, sent
assert abs(sent - recorded) <= 5 * 2, (sent, recorded)
# The history grows with the rounds and carries the schedule of each step.
assert 'schedule {"block": [32, 32]' in text, "the history lacks the schedules"
PY
exit 0
