#!/usr/bin/env bash
# bench/search_examples.sh: the built-in search against the hand-written recipes, per example, in one
# device call: every recipe*.lua of the example benched (`krewrite bench --json`), then `krewrite
# optimize --device cuda` with the heuristic proposer and a budget of KR_SEARCH_MIN minutes (default
# 3), in the same call. The search's best is compared with the fastest hand recipe of the same
# precision (the search runs strict: it does not lower precision unless --allow-lowering).
# Carry .gpu (scripts/build-gpu.sh). KR_SEARCH_PROBLEMS: the examples; KR_DEADLINE: seconds after
# which no new example starts (default 390). Results under $OUT: summary.jsonl (one line per
# example), hand/*.json, runs/<example>/run.json and report.html, run.log.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite
out=${OUT:-/tmp/kr-out}
mkdir -p "$out/hand" "$out/runs"
start=$(date +%s)
deadline=${KR_DEADLINE:-390}
log() { printf '%s\n' "$*" | tee -a "$out/run.log"; }
for p in ${KR_SEARCH_PROBLEMS:-matmul transpose stencil2d}; do
  if [ $(( $(date +%s) - start )) -ge "$deadline" ]; then log "deadline: $p not started"; continue; fi
  for r in examples/$p/recipe*.lua; do
    n=$(basename "$r" .lua)
    $kr bench "examples/$p/problem.lua" --recipe "$r" --json >"$out/hand/$p-$n.json" 2>"$out/hand/$p-$n.err"
    log "hand $p $n: exit $?"
  done
  t0=$(date +%s.%N)
  $kr optimize "examples/$p/problem.lua" --device cuda --rounds 8 --branch 2 --keep 2 --jobs 16 \
    --budget-minutes "${KR_SEARCH_MIN:-3}" --out "$out/runs/$p" >"$out/runs/$p.txt" 2>"$out/runs/$p.err"
  rc=$?
  t1=$(date +%s.%N)
  log "optimize $p: exit $rc, $(tail -n 3 "$out/runs/$p.txt" | tr '\n' ' ')"
  $kr report "$out/runs/$p/run.json" -o "$out/runs/$p/report.html" >/dev/null 2>&1
  python3 - "$p" "$out" "$t0" "$t1" "$rc" <<'PY' | tee -a "$out/summary.jsonl"
import glob, json, os, sys
p, out, t0, t1, rc = sys.argv[1:]
hand = {}
for f in sorted(glob.glob(f"{out}/hand/{p}-*.json")):
    name = os.path.basename(f)[len(p) + 1:-5]
    try:
        r = json.load(open(f))
        hand[name] = {"median_ms": r["candidate_times"]["median_ms"], "original_ms": r["original"]["median_ms"],
                      "precision": r.get("precision")}
    except Exception as e:
        hand[name] = {"error": str(e)[:200]}
strict = {k: v for k, v in hand.items() if "median_ms" in v and (v["precision"] or "").startswith("strict")}
best_hand = min(strict.items(), key=lambda kv: kv[1]["median_ms"]) if strict else None
t = json.load(open(f"{out}/runs/{p}/run.json"))
cands = [c for r in t["rounds"] for c in r["candidates"]]
timed = [c for c in cands if c.get("times")]
best = t.get("best")
bc = next((c for c in cands if best and c["id"] == best["id"]), None)
wall = float(t1) - float(t0)
stages = {}
for c in cands:
    for k, v in (c.get("stages") or {}).items():
        if v is not None: stages[k] = round(stages.get(k, 0) + v, 2)
res = {"example": p, "exit": int(rc), "search_wall_s": round(wall, 1), "rounds": len(t["rounds"]),
       "candidates": len(cands), "timed": len(timed), "candidates_per_min": round(len(cands) / wall * 60, 2),
       "stop": t.get("stop_reason"), "stages_s": stages, "hand": hand}
if bc and bc.get("times"):
    res["search_best"] = {"id": bc["id"], "median_ms": bc["times"]["candidate_median_ms"],
                          "original_ms": bc["times"]["original_median_ms"], "speedup": bc["speedup"],
                          "recipe": bc["recipe"]}
if best_hand and "search_best" in res:
    res["best_hand"] = best_hand[0]
    res["search_vs_hand"] = round(best_hand[1]["median_ms"] / res["search_best"]["median_ms"], 4)
print(json.dumps(res))
PY
done
