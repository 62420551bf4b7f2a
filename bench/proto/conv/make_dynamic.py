#!/usr/bin/env python3
"""bench/proto/conv/make_dynamic.py DIR KREWRITE: conv_relu_maxpool's recipe_fused at 256 x 96 tf32 wgmma tiles with
`persistent`, through launchers of their own (the grid's m dimension min(tiles, SMs)), as emitted (d_static_*) and
with the tiles after a block's first handed out by an atomic counter (d_dynamic_*: a block that finishes early takes
the next tile, as the hardware's block scheduler does for a block a tile; the last block to finish puts the counter
back to 0 for the next launch): *_pool with the pool walked from the tile (-D pool=true), *_sep with it as its own
kernel."""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crmp_launch import applied, launcher

d, kr = sys.argv[1], sys.argv[2]


def dynamic(src):
    a = src.index("__global__ void __launch_bounds__")
    b = src.index("__global__ void relu_inplace")
    body = src[a:b]
    loop = re.search(r"for \(int kr_tile = blockIdx\.y; (kr_tile < .*?); kr_tile \+= gridDim\.y\) \{\n", body)
    assert loop
    body = body[: loop.start()] + "__shared__ int kr_next;\n  " + f"for (int kr_tile = blockIdx.y; {loop.group(1)}; kr_tile = kr_next) {{\n" + body[loop.end():]
    end = body.rstrip().rindex("}")
    close = body.rstrip()[:end].rstrip()
    assert close.endswith("}"), close[-40:]
    close = close[:-1]
    body = (close + "  if (threadIdx.x == 0) kr_next = (int)gridDim.y + (int)atomicAdd(&kr_ctr[0], 1u);\n    __syncthreads();\n  }\n"
            "  if (threadIdx.x == 0 && atomicAdd(&kr_ctr[1], 1u) == gridDim.x * gridDim.y - 1) kr_ctr[0] = kr_ctr[1] = 0;\n}\n\n")
    return src[:a] + "__device__ unsigned kr_ctr[2];\n\n" + body + src[b:]


for name, text, launch in (("pool", applied(kr, "pool=true", "stages=4"), launcher(pooled=True)),
                           ("sep", applied(kr, "stages=3"), launcher())):
    open(f"{d}/d_static_{name}.cu", "w").write(text + launch)
    open(f"{d}/d_dynamic_{name}.cu", "w").write(dynamic(text) + launch)
