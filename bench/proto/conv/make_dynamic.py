#!/usr/bin/env python3
"""bench/proto/conv/make_dynamic.py DIR KREWRITE: conv_relu_maxpool's recipe_fused at 256 x 96 tf32 wgmma tiles with
`persistent`, through launchers of their own (the grid's m dimension min(tiles, SMs)), as emitted (d_static_*) and
with the tiles after a block's first handed out by an atomic counter (d_dynamic_*: a block that finishes early takes
the next tile, as the hardware's block scheduler does for a block a tile; the last block to finish puts the counter
back to 0 for the next launch): *_pool with the pool walked from the tile (-D pool=true), *_sep with it as its own
kernel."""
import re, subprocess, sys

d, kr = sys.argv[1], sys.argv[2]
tiles = ["precision=tf32", "api=wgmma", "bk=32", "bn=96", "bm=256", "tm=8", "tn=12", "persistent=true"]


def emitted(*extra):
    args = [kr, "apply", "examples/conv_relu_maxpool/recipe_fused.lua", "examples/conv_relu_maxpool/kernel.cu"]
    for x in tiles + list(extra):
        args += ["-D", x]
    t = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return t[: t.index("void launch_conv_relu_maxpool")]


HEAD = """void launch_conv_relu_maxpool(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                              float *x, float *w, float *b, float *t, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int PO = (P - 3) / 2 + 1;
  int QO = (Q - 3) / 2 + 1;
  int npool = N * K * PO * QO;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, 184320);
  dim3 grid((K + 95) / 96, min((N * P * Q + 255) / 256, sms));
"""
SEP = HEAD + """  conv2d<<<grid, 512, 184320, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t);
  maxpool2d<<<(npool + 255) / 256, 256, 0, stream>>>(N * K, P, Q, PO, QO, t, y);
}
"""
POOL = HEAD + """  cudaMemsetAsync(y, 0xff, sizeof(float) * npool, stream);
  conv2d<<<grid, 512, 184320, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t, N * K, PO, QO, y);
}
"""


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


for name, text, launch in (("pool", emitted("pool=true", "stages=4"), POOL), ("sep", emitted("stages=3"), SEP)):
    open(f"{d}/d_static_{name}.cu", "w").write(text + launch)
    open(f"{d}/d_dynamic_{name}.cu", "w").write(dynamic(text) + launch)
