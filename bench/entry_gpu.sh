#!/usr/bin/env bash
# bench/entry_gpu.sh: a spec's entry on the GPU, on the lent H200 (bench/h200.sh's
# conventions: .gpu carried, results under $OUT): tests/verify_gpu_entry.sh, then bench of examples/matmul
# from its launch list and through launch_matmul, and of a tiled candidate with its own launcher.
# Collected in bench/results/entry-gpu-2026-12-03.json.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu
kr=$PWD/.gpu/krewrite
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
nvcc --version | tail -2 >> $OUT/gpu.txt
( time tests/verify_gpu_entry.sh $kr ) > $OUT/entry.txt 2>&1; echo "entry rc=$?"
grep -v "^  pass" $OUT/entry.txt | tail -20
for i in 1 2 3; do
$kr bench examples/matmul/problem.lua --candidate examples/matmul/kernel.cu --json > $OUT/mm_list_$i.json 2>$OUT/mm_list_$i.err; echo "list rc=$?"
$kr bench tests/fixtures/entry/matmul.lua --candidate examples/matmul/kernel.cu --json > $OUT/mm_entry_$i.json 2>$OUT/mm_entry_$i.err; echo "entry-bench rc=$?"
$kr bench tests/fixtures/entry/matmul.lua --candidate tests/fixtures/entry/matmul_tiled.cu --json > $OUT/mm_tiled_$i.json 2>$OUT/mm_tiled_$i.err; echo "tiled rc=$?"
done
$kr bench tests/fixtures/entry/reduce.lua --candidate tests/fixtures/entry/reduce_own_block.cu --json > $OUT/reduce.json 2>$OUT/reduce.err; echo "reduce rc=$?"
python3 - $OUT <<'PY'
import json,sys,glob,os
for f in sorted(glob.glob(sys.argv[1]+"/*.json")):
    try:
        r=json.load(open(f)); print(os.path.basename(f), r.get("error"), r["original"]["median_ms"], r["candidate_times"]["median_ms"], r["speedup"], r["check_rel_l2"])
    except Exception as e: print(f, "bad", e, open(f.replace(".json",".err")).read()[-500:])
PY
$kr profile tests/fixtures/entry/matmul.lua --candidate tests/fixtures/entry/matmul_tiled.cu > $OUT/profile.txt 2>&1; echo "profile rc=$?"; tail -4 $OUT/profile.txt
