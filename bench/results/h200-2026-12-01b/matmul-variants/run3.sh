#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH KR_SOURCE_DIR=$PWD
kr=$PWD/.gpu/krewrite
w=/tmp/r3; mkdir -p $w
cd .devrun/mmx
for v in v4 v24 v25 v26 v27 v28 v30 v31 v32 v33; do
  timeout 60 $kr bench problem.lua --candidate $v.cu --json --reps 20 --min-seconds 0.3 >$w/$v.json 2>$w/$v.err
  echo "$v rc=$? $(python3 -c "import json; r=json.load(open('$w/$v.json')); print(r['candidate_times']['median_ms'], r['original']['median_ms'])" 2>/dev/null)" | tee -a $w/log
done
for v in v35 v36; do
  timeout 60 $kr bench problem256.lua --candidate $v.cu --json --reps 20 --min-seconds 0.3 >$w/$v.json 2>$w/$v.err
  echo "$v(256) rc=$? $(python3 -c "import json; r=json.load(open('$w/$v.json')); print(r['candidate_times']['median_ms'], r['original']['median_ms'])" 2>/dev/null) $(tail -c 300 $w/$v.err)" | tee -a $w/log
done
tar czf $OUT/r3.tgz -C /tmp r3
