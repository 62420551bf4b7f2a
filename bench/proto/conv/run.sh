#!/usr/bin/env bash
# bench/proto/conv/run.sh: the hand-edited conv2d and conv_relu_maxpool candidates behind
# bench/results/conv-patch-2026-12-04.json ("experiments"), each through its spec's entry (a launcher
# of its own sets the grid, 256 threads and the dynamic shared memory): verified on the GPU at the
# test sizes, then benched twice. On the lent H200, with .gpu carried (scripts/build-gpu.sh); the
# candidates are made first by make_candidates.py (see there):
#   conv_gather    the tf32 wgmma kernel implicit_gemm emits with patch=false (4-byte gathers)
#   conv_patch     the input's k tiles as whole image rows loaded 16 bytes at a time, each thread's
#                  chunks fixed across tiles, the fragments' k offsets in a table (by hand what
#                  implicit_gemm's patch now emits; a first version that recomputed each chunk's row
#                  by division in every tile ran 0.329 ms, not kept)
#   crmp_base      conv_relu_maxpool's recipe_fused (ReLU in the epilogue, the pool a kernel)
#   crmp_atomic    the pool folded into the epilogue by atomicMax on the ReLU'd bits (slower)
set -u
export LD_LIBRARY_PATH=$PWD/.gpu
kr=$PWD/.gpu/krewrite d=/tmp/kr-conv-proto
rm -rf $d; mkdir -p $d
python3 bench/proto/conv/make_candidates.py $d $kr || exit 1
for c in conv_gather conv_patch; do
  $kr verify $d/conv_entry.lua --candidate $d/$c.cu --device cuda > $OUT/v_$c.txt 2>&1; echo "verify $c rc=$? $(tail -1 $OUT/v_$c.txt)"
done
for c in crmp_base crmp_atomic; do
  $kr verify $d/crmp_entry.lua --candidate $d/$c.cu --device cuda > $OUT/v_$c.txt 2>&1; echo "verify $c rc=$? $(tail -1 $OUT/v_$c.txt)"
done
for i in 1 2; do
  for c in conv_gather conv_patch; do
    $kr bench $d/conv_entry.lua --candidate $d/$c.cu --json > $OUT/b_${c}_$i.json 2>$OUT/b_${c}_$i.err; echo "bench $c rc=$?"
  done
  for c in crmp_base crmp_atomic; do
    $kr bench $d/crmp_entry.lua --candidate $d/$c.cu --json > $OUT/b_${c}_$i.json 2>$OUT/b_${c}_$i.err; echo "bench $c rc=$?"
  done
done
python3 - $OUT <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+"/b_*.json")):
    r=json.load(open(f)); print(os.path.basename(f), r["original"]["median_ms"], r["candidate_times"]["median_ms"], r["speedup"], r["check_rel_l2"])
PY
