#!/usr/bin/env bash
# bench/optimize_cpu.sh OLD_KREWRITE NEW_KREWRITE [EXAMPLE...]: the search's cost per candidate on
# the CPU emulator, before and after a change, on the same examples: `krewrite optimize --rounds 2
# --jobs 1` with each binary in turn, each with an empty build cache of its own (XDG_CACHE_HOME), so
# both pay the same compiles. Prints one JSON object: per example and binary the wall time, the
# candidates, seconds per candidate, and (where run.json records them) the sum of each stage.
set -uo pipefail
old=$1 new=$2
shift 2
examples=${*:-vector_add matmul softmax transpose}
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=()
for ex in $examples; do
  for which in old new; do
    kr=$old
    [ $which = new ] && kr=$new
    out=$tmp/$ex-$which
    t0=$(date +%s.%N)
    XDG_CACHE_HOME=$tmp/cache-$ex-$which "$kr" optimize "examples/$ex/problem.lua" --rounds 2 --jobs 1 \
      --out "$out" >/dev/null 2>"$out.err"
    rc=$?
    t1=$(date +%s.%N)
    runs+=("$(python3 - "$out/run.json" "$ex" "$which" "$rc" "$t0" "$t1" <<'PY'
import json, sys
path, ex, which, rc, t0, t1 = sys.argv[1:]
t = json.load(open(path))
cands = [c for r in t["rounds"] for c in r["candidates"]]
wall = float(t1) - float(t0)
stages = {}
for c in cands:
    for k, v in (c.get("stages") or {}).items():
        if v is not None:
            stages[k] = round(stages.get(k, 0) + v, 3)
print(json.dumps({"example": ex, "binary": which, "exit": int(rc), "wall_s": round(wall, 2),
                  "candidates": len(cands), "verified": sum(c["status"] == "verified" for c in cands),
                  "s_per_candidate": round(wall / max(1, len(cands)), 3), "stages_s": stages or None}))
PY
)")
  done
done
printf '{"command": "bench/optimize_cpu.sh %s %s %s", "runs": [\n' "$old" "$new" "$examples"
for i in "${!runs[@]}"; do printf '  %s%s\n' "${runs[$i]}" "$([ $i -lt $((${#runs[@]} - 1)) ] && echo ,)"; done
echo ']}'
