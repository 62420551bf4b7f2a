#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH KR_SOURCE_DIR=$PWD
kr=$PWD/.gpu/krewrite
w=/tmp/r2; mkdir -p $w
cd .devrun/mmx
for v in v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11 v12 v13 v14 v15 v16 v17 v18 v22 v23; do
  timeout 60 $kr bench problem.lua --candidate $v.cu --json --reps 20 --min-seconds 0.3 >$w/$v.json 2>$w/$v.err
  echo "$v rc=$? $(python3 -c "import json; r=json.load(open('$w/$v.json')); print(r['candidate_times']['median_ms'], r['original']['median_ms'])" 2>/dev/null) $(head -c 200 $w/$v.err)" | tee -a $w/log
done
for v in v19 v21; do
  timeout 60 $kr bench problem64.lua --candidate $v.cu --json --reps 20 --min-seconds 0.3 >$w/$v.json 2>$w/$v.err
  echo "$v(64) rc=$? $(python3 -c "import json; r=json.load(open('$w/$v.json')); print(r['candidate_times']['median_ms'], r['original']['median_ms'])" 2>/dev/null) $(head -c 200 $w/$v.err)" | tee -a $w/log
done
for v in v0 v6 v12 v14 v16 v22; do nvcc -arch=sm_90 -cubin -O3 $v.cu -o $w/$v.cubin 2>/dev/null && cuobjdump -sass $w/$v.cubin > $w/$v.sass; echo "$v sass: FFMA $(grep -c FFMA $w/$v.sass) LDS $(grep -c 'LDS' $w/$v.sass) LDS128 $(grep -c 'LDS.128' $w/$v.sass) LDGSTS $(grep -c LDGSTS $w/$v.sass) total $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $w/$v.sass)" | tee -a $w/log; done
tar czf $OUT/r2.tgz -C /tmp r2
