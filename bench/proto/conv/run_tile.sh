#!/usr/bin/env bash
# bench/proto/conv/run_tile.sh: the hand-made candidates behind the "pool epilogue" experiments of
# bench/results/crmp-pool-epilogue-2026-12-04.json: conv_relu_maxpool with the max-pool computed from the
# convolution's staged epilogue tile (t never written; see make_candidates.py for each variant), beside
# the same tiles with the pool as its own kernel. Each goes through the spec's entry (a launcher of its
# own zeroes y, then launches the one kernel). The right ones are verified on the GPU, then all are timed
# twice; the timing-only variants (wrong by design: crmp_warp_store, crmp_nopool) against a copy of the
# spec whose tolerance lets them through. On the lent H200 with .gpu carried (scripts/build-gpu.sh):
#   KR_TILE_VERIFY, KR_TILE_BENCH: the variants (default all)
set -u
export LD_LIBRARY_PATH=$PWD/.gpu
kr=$PWD/.gpu/krewrite d=/tmp/kr-conv-proto
rm -rf $d; mkdir -p $d
python3 bench/proto/conv/make_candidates.py $d $kr || exit 1
sed 's/rtol = 1e-3/rtol = 1e9/' $d/crmp_entry.lua > $d/crmp_loose.lua   # the timing-only variants
right="crmp_best crmp_best128 crmp_tile crmp_warp crmp_fast crmp_walk crmp_walk_late crmp_walk2 crmp_walk2_128 crmp_vert crmp_ilp"
for c in ${KR_TILE_VERIFY:-$right}; do
  $kr verify $d/crmp_entry.lua --candidate $d/$c.cu --device cuda > $OUT/v_$c.txt 2>&1; echo "verify $c rc=$? $(tail -1 $OUT/v_$c.txt)"
done
for i in 1 2; do
  for c in ${KR_TILE_BENCH:-$right crmp_warp_store crmp_nopool}; do
    spec=$d/crmp_entry.lua; case $c in *store|*nopool) spec=$d/crmp_loose.lua;; esac
    $kr bench $spec --candidate $d/$c.cu --json > $OUT/b_${c}_$i.json 2>$OUT/b_${c}_$i.err; echo "bench $c rc=$?"
  done
done
python3 - $OUT > $OUT/summary.txt <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+"/b_*.json")):
    r=json.load(open(f))
    if "original" not in r: print(os.path.basename(f), "failed"); continue
    print(os.path.basename(f), r["original"]["median_ms"], r["candidate_times"]["median_ms"], r["speedup"], r["check_rel_l2"])
PY
cat $OUT/summary.txt; rm -f $OUT/b_*.err
