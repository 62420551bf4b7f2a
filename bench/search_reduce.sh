#!/usr/bin/env bash
# bench/search_reduce.sh: the hand-written reduction recipes of softmax and layernorm benched, then
# `krewrite optimize` (built-in proposer, 3 minutes each) on both in the same device call
# (bench/h200.sh optimize), so that the search is compared with the hand recipe in one run.
# Carry .gpu (scripts/build-gpu.sh). Results under $OUT (hand/, all.tgz, run.log). KR_SEARCH_PROBLEMS: the
# problems (default: softmax layernorm).
set -u
export LD_LIBRARY_PATH=$PWD/.gpu PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite
mkdir -p $OUT/hand
probs=${KR_SEARCH_PROBLEMS:-softmax layernorm}
for p in $probs; do
  $kr bench examples/$p/problem.lua --recipe examples/$p/recipe_reduce.lua --json > $OUT/hand/$p.json 2>$OUT/hand/$p.err
  echo "hand $p rc=$?: $(python3 -c "import json; r=json.load(open('$OUT/hand/$p.json')); print(r['candidate_times']['median_ms'], 'ms, original', r['original']['median_ms'])")"
done
KR_OPT_PROBLEMS="$probs" KR_OPT_MIN=3 KR_OPT_ROUNDS=8 KR_DEADLINE=420 bash bench/h200.sh optimize 2>&1 | cut -c1-600
