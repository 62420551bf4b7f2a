#!/usr/bin/env python3
"""bench/proto/conv/make_epilogue.py DIR KREWRITE: conv_relu_maxpool's best recipe (recipe_fused at 256 x 96 tf32 wgmma
tiles, 3 stages, persistent, order = descending; the pool as its own kernel), through a launcher of its own, as
emitted (e_base) and with its epilogue's bias read from a shared copy the block fills once before its tile loop
(e_bias: the epilogue's b[k], 48 loads a thread a tile, waited on as long-scoreboard stalls), and with the
epilogue's loop unrolled by 4 as well (e_bias_unroll). Since implicit_gemm stages such reads itself, only e_base."""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crmp_launch import applied, launcher

d, kr = sys.argv[1], sys.argv[2]
t = applied(kr, "stages=3", "order=descending")
LAUNCH = launcher(int(re.search(r"the tiles in (\d+) bytes of dynamic shared memory", t).group(1)))
open(f"{d}/e_base.cu", "w").write(t + LAUNCH)
loop = "  for (int kr_tile = blockIdx.y;"
if "        float sum = b[k];\n" not in t:   # (the schedule stages the bias itself since these experiments)
    sys.exit(0)
assert loop in t
bias = t.replace(loop, "  __shared__ float kr_b[BN];\n  for (int i = threadIdx.x; i < BN; i += blockDim.x) kr_b[i] = blockIdx.x * BN + i < K ? b[blockIdx.x * BN + i] : 0.0f;\n"
                 "  __syncthreads();\n" + loop, 1).replace("        float sum = b[k];\n", "        float sum = kr_b[no_1];\n", 1)
open(f"{d}/e_bias.cu", "w").write(bias + LAUNCH)
eo = "    for (int eo = 0; eo < BM * BN / NT; eo++) {\n"
assert eo in bias
open(f"{d}/e_bias_unroll.cu", "w").write(bias.replace(eo, "    #pragma unroll 4\n" + eo, 1) + LAUNCH)
