#!/usr/bin/env bash
# tests/optimize_prepared.sh KREWRITE PROBLEM SOURCE PASSES: the built-in search, one round on the CPU
# emulator, on a naive matmul the nest does not read as written (its loads go through accessor
# macros or pointer locals, its locals are declared without a value, or it is a template): the
# heuristic starts its ideas from the kernel prepared by PASSES, in that order (one word, or several:
# "join_declarations inline_pointers"). Passes when the contraction's schedule was proposed that way and verified, each
# candidate was applied once (the seeds: as they are, and once prepared by each pass in turn), and
# best.json replays to the kernel the best recipe makes of SOURCE.
set -uo pipefail
kr=$1
problem=$2
source=$3
passes=$4
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_prepared $problem: $*" >&2; exit 1; }
"$kr" optimize "$problem" --rounds 1 --branch 2 --keep 1 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
cat "$tmp/stdout"
[ $rc = 0 ] || { cat "$tmp/stderr" >&2; fail "exit $rc"; }
python3 - "$tmp/out/run.json" "$passes" <<'PY' || fail "run.json does not show the schedule proposed after $passes"
import json, re, sys
t = json.load(open(sys.argv[1]))
cands = [c for r in t["rounds"] for c in r["candidates"]]
passes = sys.argv[2].split()
want = ".*".join(r'apply\("%s"' % p for p in passes + ["tile"])
sched = [c for c in cands if c["status"] == "verified" and re.search(want, c["recipe"], re.S)]
assert sched, [(c["id"], c["status"], c["idea"]) for c in cands]
print(f"optimize_prepared: {len(sched)} schedule(s) verified after {' then '.join(passes)}, e.g. {sched[0]['idea']}")
# Each candidate applied once; the seeds: the original, and the original prepared by each pass in turn.
made = sum(1 for c in cands if c.get("model") is None)
weighed = sum(len(p["candidates"]) for r in t["rounds"] for p in r["pruning"])
assert t["recipe_applies"] == made + weighed + 1 + len(passes), (t["recipe_applies"], made, weighed)
PY
"$kr" replay "$tmp/out/best.json" -o "$tmp/replay.cu" 2>"$tmp/replay.err" || { cat "$tmp/replay.err" >&2; fail "replay failed"; }
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["id"])' "$tmp/out/run.json")
"$kr" apply "$tmp/out/cand-$id.lua" "$source" -o "$tmp/apply.cu" 2>"$tmp/apply.err" ||
  { cat "$tmp/apply.err" >&2; fail "the best recipe does not apply"; }
cmp -s "$tmp/apply.cu" "$tmp/replay.cu" || fail "best.json replays to another kernel than the best recipe makes"
exit 0
