#!/usr/bin/env python3
"""bench/proto/conv/make_persistent.py DIR KREWRITE: after make_candidates.py DIR KREWRITE, conv_relu_maxpool's
recipe_fused at 256 x 96 tf32 wgmma tiles, 4 stages, with `persistent` (a block an SM walking the m tiles), the
pool as its own kernel, through launchers of their own, and variants of it:
  p_base     as emitted (the grid's m dimension min(tiles, SMs), as the launch change says)
  p_notab    timing only (wrong by design): the patch tables (x_ftab, x_rtab) not refilled in the k loop, to bound
             what their per-tile fill by warp 0 costs
  p_rev      the pool kernel's blocks taken from the last: it reads first the part of t the convolution wrote last,
             which may still be in L2
  p_pool2    the pool kernel with two pooled columns a thread (the shared window column read once)"""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crmp_launch import applied, launcher

d, kr = sys.argv[1], sys.argv[2]
text = applied(kr, "stages=4")
POOL1 = launcher()
POOL2 = launcher(pool_grid="(N * K * PO * ((QO + 1) / 2) + 255) / 256")


def write(name, src, launch=POOL1):
    open(f"{d}/{name}.cu", "w").write(src + launch)


write("p_base", text)
# the k loop's refills of the patch tables (the prologue's stay)
loop = text.index("for (int kt = 0; kt < ntiles; kt++) {")
body = text[loop:]
n0 = len(body)
body = re.sub(r"\n( +)for \(int te_\d+ = tid; te_\d+ < BK; te_\d+ \+= NT\) \{\n +const int pk_\d+ = .*?\n\1\}", "", body, count=1, flags=re.S)
body = re.sub(r"\n( +)for \(int te_\d+ = tid; te_\d+ < x_nkmax; te_\d+ \+= NT\) \{\n.*?\n\1\}", "", body, count=1, flags=re.S)
if len(body) < n0 - 200:   # (the fills' loops as emitted before the patch tables moved to the last warps)
    write("p_notab", text[:loop] + body)
rev = text.replace("int idx = blockIdx.x * blockDim.x + threadIdx.x;\n  if (idx >= NK * PO * QO) return;",
                   "int idx = (gridDim.x - 1 - blockIdx.x) * blockDim.x + threadIdx.x;\n  if (idx >= NK * PO * QO) return;")
assert rev != text
write("p_rev", rev)
a = text.index("__global__ void maxpool2d(")
e = text.index("\n}\n", a) + 3
POOL_TWO = """__global__ void maxpool2d(int NK, int P, int Q, int PO, int QO, const float *__restrict__ t, float *__restrict__ y) {
  const int QH = (QO + 1) / 2;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= NK * PO * QH) return;
  const int qh = idx % QH, po = (idx / QH) % PO, nk = idx / (QH * PO);
  const int qo = 2 * qh;
  const bool two = qo + 1 < QO;
  float m0 = -INFINITY, m1 = -INFINITY;
  #pragma unroll
  for (int i = 0; i < 3; i++) {
    const float *r = &t[(nk * P + po * 2 + i) * Q + qo * 2];
    const float a0 = __ldg(r), a1 = __ldg(r + 1), a2 = __ldg(r + 2);
    m0 = fmaxf(m0, fmaxf(a0, fmaxf(a1, a2)));
    if (two) m1 = fmaxf(m1, fmaxf(a2, fmaxf(__ldg(r + 3), __ldg(r + 4))));
  }
  y[(nk * PO + po) * QO + qo] = m0;
  if (two) y[(nk * PO + po) * QO + qo + 1] = m1;
}
"""
write("p_pool2", text[:a] + POOL_TWO + text[e:], POOL2)
