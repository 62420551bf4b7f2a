#!/usr/bin/env bash
# bench/proto/conv/ncu_pooled.sh: Nsight Compute on recipe_fused -D pool=true's kernel (tf32 wgmma, 256 x 96, 4 stages) and on the
# hand walk crmp_ilp (make_candidates.py): duration, instructions, and the epilogue's (after the last
# wgmma) instructions by opcode. On the lent H200 with .gpu carried.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite d=/tmp/kr-conv-proto
rm -rf $d; mkdir -p $d
python3 bench/proto/conv/make_candidates.py $d $kr > /dev/null || exit 1
tiles="-D precision=tf32 -D api=wgmma -D bk=32 -D bn=96 -D bm=256 -D tm=8 -D tn=12 -D stages=4"
ncu --clock-control none --set full -k regex:conv2d -c 1 -o /tmp/rep_pooled $kr profile --launch-once examples/conv_relu_maxpool/problem.lua --arch sm_90a --recipe examples/conv_relu_maxpool/recipe_fused.lua -D pool=true $tiles > /tmp/n1.txt 2>&1; echo "ncu pooled rc=$?"
ncu --clock-control none --set full -k regex:conv2d -c 1 -o /tmp/rep_ilp $kr profile --launch-once $d/crmp_entry.lua --arch sm_90a --candidate $d/crmp_ilp.cu > /tmp/n2.txt 2>&1; echo "ncu ilp rc=$?"
for c in pooled ilp; do
  ncu --import /tmp/rep_$c.ncu-rep --page details > $OUT/details_$c.txt 2>&1
  ncu --import /tmp/rep_$c.ncu-rep --page source --csv --print-source sass > /tmp/sass_$c.csv 2>&1
  python3 - /tmp/sass_$c.csv > $OUT/hot_$c.txt <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; data = rows[2:]
ie = h.index("Instructions Executed"); src = h.index("Source")
samp = [i for i, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")][0]
tot = sum(float(r[samp] or 0) for r in data) or 1
print("instructions executed:", sum(float(r[ie] or 0) for r in data))
# after the last HGMMA / WARPGROUP: the epilogue
last = max(i for i, r in enumerate(data) if "WARPGROUP.DEPBAR" in r[src] or "HGMMA" in r[src])
ep = data[last + 1:]
print("epilogue: instructions", sum(float(r[ie] or 0) for r in ep), "samples %.1f%%" % (sum(float(r[samp] or 0) for r in ep) / tot * 100))
from collections import Counter
c = Counter()
for r in ep:
    t = r[src].split()
    if not t: continue
    op = t[1] if t[0].startswith('@') and len(t) > 1 else t[0]
    c[op.split('.')[0]] += float(r[ie] or 0)
print("epilogue by opcode:", ", ".join(f"{k} {v:.0f}" for k, v in c.most_common(14)))
PY
  echo "== $c"; grep -E "^    (Duration|Executed Ipc Active)" $OUT/details_$c.txt; cat $OUT/hot_$c.txt
done
