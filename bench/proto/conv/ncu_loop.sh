#!/usr/bin/env bash
# bench/proto/conv/ncu_loop.sh: Nsight Compute on recipe_fused's convolution (tf32 wgmma, 256 x 96, 4 stages, the pool
# as its own kernel): duration, IPC, warp stalls, and the main loop's (first to last HGMMA) instructions and stall
# samples by opcode; then the hottest SASS lines. On the lent H200 with .gpu carried. Extra -D settings: $KR_NCU_SET.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite
tiles="-D precision=tf32 -D api=wgmma -D bk=32 -D bn=96 -D bm=256 -D tm=8 -D tn=12 -D stages=4 ${KR_NCU_SET:-}"
ncu -f --clock-control none --set full --import-source no -k regex:conv2d -c 1 -o /tmp/rep_loop $kr profile --launch-once examples/conv_relu_maxpool/problem.lua --arch sm_90a --recipe examples/conv_relu_maxpool/recipe_fused.lua $tiles > /tmp/n1.txt 2>&1; echo "ncu rc=$?"; tail -3 /tmp/n1.txt
ncu --import /tmp/rep_loop.ncu-rep --page details > $OUT/details_loop${KR_NCU_TAG:-}.txt 2>&1
ncu --import /tmp/rep_loop.ncu-rep --page source --csv --print-source sass > /tmp/sass_loop.csv 2>&1
gzip -c /tmp/sass_loop.csv > $OUT/sass_loop${KR_NCU_TAG:-}.csv.gz
grep -E "^    (Duration|Executed Ipc Active|Issue Slots Busy|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|L1/TEX Hit|Mem Busy|Max Bandwidth|Compute \(SM\) Throughput|DRAM Throughput)" $OUT/details_loop${KR_NCU_TAG:-}.txt
python3 - /tmp/sass_loop.csv > $OUT/loop${KR_NCU_TAG:-}.txt <<'PY'
import csv, sys
from collections import Counter, defaultdict
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; data = rows[2:]
ie = h.index("Instructions Executed"); src = h.index("Source")
samp = [i for i, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")][0]
stallcols = [(i, c) for i, c in enumerate(h) if c.startswith("stall_") or "Stall" in c and "Sampling" not in c]
f = lambda r, i: float(r[i] or 0) if r[i].replace('.', '', 1).isdigit() else 0.0
tot = sum(f(r, samp) for r in data) or 1
print("instructions executed:", sum(f(r, ie) for r in data), "lines", len(data))
hg = [i for i, r in enumerate(data) if "HGMMA" in r[src]]
first, last = hg[0], hg[-1]
def op(r):
    t = r[src].split()
    if not t: return "?"
    o = t[1] if t[0].startswith('@') and len(t) > 1 else t[0]
    return o.split('.')[0]
for name, part in (("before loop", data[:first]), ("loop", data[first:last + 1]), ("after loop", data[last + 1:])):
    c = Counter(); s = Counter()
    for r in part:
        c[op(r)] += f(r, ie); s[op(r)] += f(r, samp)
    print(f"== {name}: instructions {sum(c.values()):.0f}, samples {sum(s.values()) / tot * 100:.1f}%")
    print("  by opcode (instr):", ", ".join(f"{k} {v:.0f}" for k, v in c.most_common(18)))
    print("  by opcode (samples %):", ", ".join(f"{k} {v / tot * 100:.1f}" for k, v in s.most_common(12)))
print("stall columns:", [c for _, c in stallcols][:40])
print("== hottest lines (samples %, executed, source)")
for r in sorted(data, key=lambda r: -f(r, samp))[:40]:
    print(f"  {f(r, samp) / tot * 100:5.1f}% {f(r, ie):10.0f}  {r[src][:110]}")
print("== loop SASS")
for r in data[first - 5:last + 3]:
    print(f"  {f(r, samp) / tot * 100:5.1f}% {f(r, ie):9.0f} {r[src][:120]}")
PY
sed -n '1,/== loop SASS/p' $OUT/loop${KR_NCU_TAG:-}.txt | cut -c1-160 | head -80
