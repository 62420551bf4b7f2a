#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH KR_SOURCE_DIR=$PWD
kr=$PWD/.gpu/krewrite
w=/tmp/r4; mkdir -p $w
KR_SWEEP_REPS=20 timeout 300 bench/sweep.sh $kr examples/matmul/problem.lua examples/matmul/recipe_tiled.lua $w/mm "bm=128 bn=128 bk=16 tm=8 tn=8 stages=2" "bm=128 bn=128 bk=32 tm=8 tn=8 stages=1" "bm=128 bn=128 bk=8 tm=8 tn=8 stages=3" "bm=128 bn=128 bk=8 tm=8 tn=8 stages=4" "bm=128 bn=128 bk=16 tm=8 tn=8 stages=1" "bm=64 bn=128 bk=32 tm=8 tn=8 stages=1" 2>&1 | tee -a $w/log
rm -rf $w/mm/best-dump
for f in .devrun/em/*.cu; do b=$(basename $f .cu)
  timeout 90 $kr bench .devrun/mmx/problem.lua --candidate $f --json --reps 20 --min-seconds 0.3 >$w/$b.json 2>$w/$b.err
  echo "$b rc=$? $(python3 -c "import json; r=json.load(open('$w/$b.json')); print(r['candidate_times']['median_ms'], r['original']['median_ms'])" 2>/dev/null) $(tail -c 200 $w/$b.err)" | tee -a $w/log
done
tar czf $OUT/r4.tgz -C /tmp r4
