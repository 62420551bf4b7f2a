#!/usr/bin/env bash
# bench/proto/conv/ncu_tile.sh: Nsight Compute on crmp_walk_late and crmp_nopool (make_candidates.py), one
# launch each: duration, issue figures, instructions executed and where the stall samples fall. On the
# lent H200 with .gpu carried.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite d=/tmp/kr-conv-proto
rm -rf $d; mkdir -p $d
python3 bench/proto/conv/make_candidates.py $d $kr || exit 1
for c in crmp_walk_late crmp_nopool; do
  spec=$d/crmp_entry.lua; [ $c = crmp_nopool ] && { sed 's/rtol = 1e-3/rtol = 1e9/' $d/crmp_entry.lua > $d/loose.lua; spec=$d/loose.lua; }
  ncu --clock-control none --set full -k regex:conv2d -c 1 -o /tmp/rep_$c $kr profile --launch-once $spec --arch sm_90a --candidate $d/$c.cu > /tmp/ncu_$c.txt 2>&1
  echo "ncu $c rc=$?"; tail -3 /tmp/ncu_$c.txt
  ncu --import /tmp/rep_$c.ncu-rep --page details > $OUT/details_$c.txt 2>&1
  ncu --import /tmp/rep_$c.ncu-rep --page source --csv --print-source sass > /tmp/sass_$c.csv 2>&1
  python3 - /tmp/sass_$c.csv > $OUT/hot_$c.txt <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; data = rows[2:]
cols = [c for c in h if c.startswith('stall_') and '(' not in c]
idx = {c: h.index(c) for c in cols}
ie = h.index("Instructions Executed"); src = h.index("Source")
samp = [i for i, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")][0]
tot = sum(float(r[samp] or 0) for r in data) or 1
print("instructions executed:", sum(float(r[ie] or 0) for r in data))
# the sampled stalls by region: instruction index in the SASS
acc = 0; n = len(data)
for k in range(10):
    part = data[k * n // 10:(k + 1) * n // 10]
    print(f"region {k}: samples {sum(float(r[samp] or 0) for r in part)/tot*100:.1f}%  instrs {sum(float(r[ie] or 0) for r in part):.0f}")
top = sorted(range(n), key=lambda i: -float(data[i][samp] or 0))[:25]
for i in sorted(top):
    r = data[i]
    st = sorted(((float(r[idx[c]] or 0), c[6:]) for c in cols), reverse=True)[:2]
    print(f"{i:5d} {float(r[samp] or 0)/tot*100:5.1f}% {r[src][:70]:70s} {st}")
PY
done
for c in crmp_walk_late crmp_nopool; do echo "== $c"; grep -E "^    (Duration|Grid Size|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|No Eligible)" $OUT/details_$c.txt; head -12 $OUT/hot_$c.txt; done
