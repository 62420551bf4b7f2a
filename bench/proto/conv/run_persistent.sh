#!/usr/bin/env bash
# bench/proto/conv/run_persistent.sh: the variants of make_persistent.py, make_dynamic.py and make_epilogue.py beside crmp_best (make_candidates.py: the
# same tiles, not persistent): the right ones verified on the GPU through the spec's entry, then all timed twice
# (p_notab, wrong by design, against a copy of the spec whose tolerance lets it through). On the lent H200 with
# .gpu carried. KR_P_CANDS: the candidates (default all).
set -u
export LD_LIBRARY_PATH=$PWD/.gpu
kr=$PWD/.gpu/krewrite d=/tmp/kr-conv-proto
rm -rf $d; mkdir -p $d
python3 bench/proto/conv/make_candidates.py $d $kr > /dev/null || exit 1
python3 bench/proto/conv/make_persistent.py $d $kr || exit 1
python3 bench/proto/conv/make_dynamic.py $d $kr || exit 1
python3 bench/proto/conv/make_epilogue.py $d $kr || exit 1
sed 's/rtol = 1e-3/rtol = 1e9/' $d/crmp_entry.lua > $d/crmp_loose.lua
cands=${KR_P_CANDS:-"crmp_best p_base p_notab p_rev p_pool2"}
for c in $cands; do
  case $c in p_notab) continue;; esac
  $kr verify $d/crmp_entry.lua --candidate $d/$c.cu --device cuda > /tmp/v_$c.txt 2>&1; echo "verify $c rc=$? $(tail -1 /tmp/v_$c.txt)"
done
for i in 1 2; do
  for c in $cands; do
    spec=$d/crmp_entry.lua; case $c in p_notab) spec=$d/crmp_loose.lua;; esac
    $kr bench $spec --candidate $d/$c.cu --json > /tmp/b_${c}_$i.json 2>/tmp/b_${c}_$i.err || echo "bench $c rc=$? $(tail -2 /tmp/b_${c}_$i.err)"
  done
done
python3 - /tmp $cands > $OUT/summary.txt <<'PY'
import json,sys,os
for c in sys.argv[2:]:
  for i in (1, 2):
    f = f"{sys.argv[1]}/b_{c}_{i}.json"
    try: r=json.load(open(f))
    except Exception: print(c, i, "no json"); continue
    if "original" not in r: print(c, i, "failed"); continue
    print(c, i, r["original"]["median_ms"], r["candidate_times"]["median_ms"], r["speedup"], r["check_rel_l2"])
PY
cat $OUT/summary.txt
