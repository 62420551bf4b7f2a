#!/usr/bin/env bash
# bench/ncu_probe.sh: one Nsight Compute run of a recipe's kernel on the lent H200, summarised: its
# duration, issue and occupancy figures, the warp stall reasons over the kernel's SASS and the hottest
# instructions (the source page's sampling columns). Also runs tests/verify_gpu_entry.sh.
#   KR_NCU_PROBLEM, KR_NCU_RECIPE, KR_NCU_ARGS: what to profile (default conv2d tf32 wgmma, 3 stages)
set -u
export LD_LIBRARY_PATH=$PWD/.gpu PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite
tests/verify_gpu_entry.sh $kr > $OUT/entry.txt 2>&1; echo "entry rc=$?"; grep -v "^  pass" $OUT/entry.txt | tail -4
P=${KR_NCU_PROBLEM:-examples/conv2d/problem.lua}; R=${KR_NCU_RECIPE:-examples/conv2d/recipe_igemm.lua}
read -ra A <<<"${KR_NCU_ARGS:--D precision=tf32 -D api=wgmma -D bn=96 -D stages=3}"
ncu --clock-control none --set full -c 1 -o /tmp/rep $kr profile --launch-once $P --arch sm_90a --recipe $R "${A[@]}" > $OUT/ncu_run.txt 2>&1
echo "ncu rc=$?"
ncu --import /tmp/rep.ncu-rep --page details > $OUT/details.txt 2>&1
ncu --import /tmp/rep.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
python3 - $OUT/sass.csv <<'PY'
import csv, sys
from collections import Counter
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; data = rows[2:]
cols = [c for c in h if c.startswith('stall_') and '(' not in c]
idx = {c: h.index(c) for c in cols}
tot = {c: sum(float(r[idx[c]] or 0) for r in data) for c in cols}
T = sum(tot.values()) or 1
print("stalls:", ", ".join(f"{c[6:]} {v/T*100:.1f}%" for c, v in sorted(tot.items(), key=lambda x: -x[1])[:8]))
ie = h.index("Instructions Executed"); src = h.index("Source")
print("instructions executed:", sum(float(r[ie] or 0) for r in data))
c = Counter()
for r in data:
    t = r[src].split()
    if not t: continue
    op = t[1] if t[0].startswith('@') and len(t) > 1 else t[0]
    c[op.split('.')[0]] += float(r[ie] or 0)
print("by opcode:", ", ".join(f"{k} {v/sum(c.values())*100:.1f}%" for k, v in c.most_common(10)))
PY
grep -E "^    (Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Executed Ipc Active)" $OUT/details.txt
