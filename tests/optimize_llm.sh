#!/usr/bin/env bash
# tests/optimize_llm.sh KREWRITE LLM_SERVER: `krewrite optimize --proposer llm` against the scripted
# local server (tests/llm_server.c). Three checks:
#  1. a malformed first reply is fed back to the model; the second reply carries one idea with an
#     unknown pass (rejected, recorded) and one valid idea (verified): exit 0, run.json parses and
#     records the rejection, the tokens and the verified candidate; the server saw two requests;
#     the API key appears nowhere in the output folder, stdout or stderr;
#  2. --dry-run prints the prompt (kernel name, pass names) and makes no request (nothing listens);
#  3. an unreachable endpoint ends the run cleanly: a clear error, exit non-zero, valid run.json;
#  4. three rounds through 429 + Retry-After, a hostile recipe, a 500, a stalled connection and a
#     round whose replies are all unusable: the run goes on and records each.
set -uo pipefail
kr=$1
server=$2
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
spid=
cleanup() { [ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "optimize_llm: $*" >&2; exit 1; }
problem=examples/vector_add/problem.lua
secret=sk-test-secret

# ---- 1. malformed reply, then one unknown pass and one valid idea --------------------------------
python3 - "$tmp/script" <<'PY'
import json, sys
def reply(content, p, c):
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": p, "completion_tokens": c, "cost": 0.001}})
ideas = {"ideas": [
    {"reason": "a pass that does not exist",
     "recipe": 'local k = kr.kernel("vector_add")\nk:apply("no_such_pass")'},
    {"reason": "x, y and out never alias",
     "recipe": 'local k = kr.kernel("vector_add")\nk:apply("restrict")'}]}
with open(sys.argv[1], "w") as f:
    f.write("respond 200\nheader Content-Type: application/json\nbody %s\n"
            % reply('{"ideas": [ this is not json', 100, 10))
    f.write("respond 200\nheader Content-Type: application/json\nbody %s\n"
            % reply(json.dumps(ideas), 200, 20))
PY
"$server" "$tmp/script" "$tmp/log" 20 >"$tmp/port" &
spid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(head -n1 "$tmp/port")
[ -n "$port" ] || fail "the scripted server did not start"
KREWRITE_LLM_URL=http://127.0.0.1:$port/v1/chat/completions KREWRITE_LLM_MODEL=test \
  KREWRITE_LLM_API_KEY=$secret KREWRITE_LLM_RETRIES=0 \
  "$kr" optimize "$problem" --proposer llm --rounds 1 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 0 ] || fail "exit $rc"
python3 -m json.tool "$tmp/out/run.json" >/dev/null || fail "run.json is not valid JSON"
python3 - "$tmp/out/run.json" <<'PY' || fail "run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["proposer"] == "llm"
r = t["rounds"][0]
assert r["proposer"] == "llm", r
assert r["tokens"] == {"prompt": 300, "completion": 30}, r["tokens"]
assert r["cost"] is not None and abs(r["cost"] - 0.002) < 1e-9, r["cost"]
rej = " | ".join(r["rejected"])
assert "not valid JSON" in rej, rej
assert "no_such_pass" in rej, rej
cands = r["candidates"]
assert len(cands) == 1 and cands[0]["status"] == "verified", cands
assert "restrict" in cands[0]["recipe"] and cands[0]["pass"] == "restrict"
assert t["best"] and t["best_log"]
PY
n=$(grep -c '^POST ' "$tmp/log")
[ "$n" = 2 ] || fail "the server saw $n requests, not 2"
grep -q "Your reply was rejected" "$tmp/log" || fail "the error was not fed back to the model"
grep -rq "$secret" "$tmp/out" && fail "the API key was written under the output folder"
grep -q "$secret" "$tmp/stdout" "$tmp/stderr" && fail "the API key was printed"
wait "$spid" 2>/dev/null
spid=

# ---- 2. --dry-run prints the prompt and makes no request ------------------------------------------
KREWRITE_LLM_URL=http://127.0.0.1:9/v1/chat/completions KREWRITE_LLM_MODEL=test \
  KREWRITE_LLM_API_KEY=$secret \
  "$kr" optimize "$problem" --proposer llm --dry-run --out "$tmp/dry" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ $rc = 0 ] || { cat "$tmp/stderr"; fail "--dry-run: exit $rc"; }
for w in vector_add restrict vectorize unroll '"ideas"' 'History'; do
  grep -q -- "$w" "$tmp/stdout" || fail "--dry-run: the prompt lacks $w"
done
[ -e "$tmp/dry" ] && fail "--dry-run wrote an output folder"
grep -q "$secret" "$tmp/stdout" "$tmp/stderr" && fail "--dry-run printed the API key"

# ---- 3. an unreachable endpoint ends the run cleanly ----------------------------------------------
KREWRITE_LLM_URL=http://127.0.0.1:9/v1/chat/completions KREWRITE_LLM_MODEL=test \
  KREWRITE_LLM_API_KEY=$secret KREWRITE_LLM_RETRIES=0 \
  "$kr" optimize "$problem" --proposer llm --rounds 1 --out "$tmp/down" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 0 ] && fail "unreachable endpoint: exit 0"
[ $rc -ge 128 ] && fail "unreachable endpoint: killed by a signal ($rc)"
grep -q "LLM endpoint failed" "$tmp/stderr" || fail "unreachable endpoint: no clear error"
python3 - "$tmp/down/run.json" <<'PY' || fail "unreachable endpoint: run.json is not valid or lacks the error"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["proposer_error"], t
assert t["rounds"][0]["error"], t["rounds"]
PY
grep -rq "$secret" "$tmp/down" "$tmp/stdout" "$tmp/stderr" && fail "the API key leaked"

# ---- 4. three rounds through every kind of trouble -------------------------------------------------
# Round 1: 429 with Retry-After (waited, retried), a reply whose only recipe calls os.execute
# (rejected by the sandbox, fed back), a 500 (retried), then a valid idea (verified). Round 2: a
# stalled connection (timed out, retried), then three replies naming an unknown pass (the
# reply and both follow-ups rejected): the round ends with nothing to try, and the search goes
# on. Round 3: its prompt carries round 2's rejections; a valid idea is verified.
python3 - "$tmp/script4" <<'PY'
import json, sys
def reply(ideas):
    return json.dumps({"choices": [{"message": {"role": "assistant",
                                                "content": json.dumps({"ideas": ideas})}}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
def ok(ideas):
    return "respond 200\nheader Content-Type: application/json\nbody %s\n" % reply(ideas)
k = 'local k = kr.kernel("vector_add")\n'
hostile = [{"reason": "run a shell", "recipe": 'os.execute("touch /tmp/krewrite-pwned")\n' + k + 'k:apply("restrict")'}]
unknown = [{"reason": "tile it", "recipe": k + 'k:apply("tile_everything")'}]
with open(sys.argv[1], "w") as f:
    f.write('respond 429\nheader Retry-After: 1\nbody {"error": {"message": "slow down"}}\n')
    f.write(ok(hostile))
    f.write('respond 500\nbody {"error": {"message": "internal"}}\n')
    f.write(ok([{"reason": "no aliasing between x, y and out", "recipe": k + 'k:apply("restrict")'}]))
    f.write("stall\n")
    f.write(ok(unknown) * 3)
    f.write(ok([{"reason": "read-only loads through the texture path", "recipe": k + 'k:apply("ldg")'}]))
PY
"$server" "$tmp/script4" "$tmp/log4" 60 >"$tmp/port4" &
spid=$!
for _ in $(seq 50); do [ -s "$tmp/port4" ] && break; sleep 0.1; done
port=$(head -n1 "$tmp/port4")
[ -n "$port" ] || fail "the scripted server did not start (4)"
rm -f /tmp/krewrite-pwned
KREWRITE_LLM_URL=http://127.0.0.1:$port/v1/chat/completions KREWRITE_LLM_MODEL=test \
  KREWRITE_LLM_API_KEY=$secret KREWRITE_LLM_RETRIES=2 KREWRITE_LLM_TIMEOUT=2 \
  "$kr" optimize "$problem" --proposer llm --rounds 3 --keep 1 --out "$tmp/out4" \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout" "$tmp/stderr"
[ $rc = 0 ] || fail "(4) exit $rc"
[ -e /tmp/krewrite-pwned ] && fail "(4) the hostile recipe ran os.execute"
python3 - "$tmp/out4/run.json" <<'PY' || fail "(4) run.json lacks what it should hold"
import json, sys
t = json.load(open(sys.argv[1]))
r1, r2, r3 = t["rounds"]
assert any("global 'os'" in x for x in r1["rejected"]), r1["rejected"]
assert [c["status"] for c in r1["candidates"]] == ["verified"], r1["candidates"]
assert r2["ideas"] == 0 and r2["candidates"] == [] and r2["requests"] == 3, r2
assert sum("tile_everything" in x for x in r2["rejected"]) == 3, r2["rejected"]
assert r2["error"] is None, r2["error"]
assert [c["status"] for c in r3["candidates"]] == ["verified"], r3["candidates"]
assert "ldg" in r3["candidates"][0]["recipe"]
assert t["stop_reason"] == "round limit", t["stop_reason"]
assert t["proposer_error"] is None
assert t["best"]["id"] == r3["candidates"][0]["id"], t["best"]
PY
n=$(grep -c '^POST ' "$tmp/log4")
[ "$n" = 9 ] || fail "(4) the server saw $n requests, not 9"
grep -q "rejected in round 2" "$tmp/log4" || fail "(4) round 3's prompt lacks round 2's rejections"
grep -q "registers" "$tmp/log4" || fail "(4) the prompt lacks the ptxas resources"
wait "$spid" 2>/dev/null
spid=
exit 0
