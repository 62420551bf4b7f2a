#!/usr/bin/env python3
"""bench/proto/conv/make_candidates.py DIR KREWRITE: writes into DIR what run.sh times, from the repository's
own files: conv_entry.lua and crmp_entry.lua (the examples' specs through their launchers, tolerance 1e-3),
conv_gather.cu (implicit_gemm's tf32 wgmma kernel with the gather, patch=false) and crmp_base.cu
(conv_relu_maxpool's recipe_fused in tf32) with launchers of their own, crmp_atomic.cu (crmp_base with the
max-pool folded into the convolution's epilogue by atomicMax), and conv_patch.cu (the hand-written kernel
and launcher behind the emitted helpers). Run from the repository's root."""
import os, re, subprocess, sys

out, kr = sys.argv[1], sys.argv[2]
root = os.path.relpath(".", out)   # the repository from DIR, for the specs' sources


def spec(example, entry):
    s = open(f"examples/{example}/problem.lua").read()
    s = s.replace('source = "kernel.cu"', f'source = "{root}/examples/{example}/kernel.cu"')
    s = re.sub(r"  launches = \{.*?\n  \},\n", f'  entry = "{entry}",\n', s, flags=re.S)
    return s.replace("rtol = 1e-6", "rtol = 1e-3")


def applied(example, recipe, *defs):
    args = [kr, "apply", f"examples/{example}/{recipe}", f"examples/{example}/kernel.cu"]
    for d in defs:
        args += ["-D", d]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def cut(text, launcher):
    return text[: text.index(launcher)]


CONV_LAUNCH = """void launch_conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, float *x,
                   float *w, float *b, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, 89088);
  conv2d<<<dim3((K + 95) / 96, (N * P * Q + 127) / 128), 256, 89088, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, y);
}
"""

CRMP_LAUNCH = """void launch_conv_relu_maxpool(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                              float *x, float *w, float *b, float *t, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int PO = (P - 3) / 2 + 1;
  int QO = (Q - 3) / 2 + 1;
  int npool = N * K * PO * QO;
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, 89088);
  %s
}
"""

POOL_SCATTER = """      const float v = fmaxf(sum, 0.0f);
      const int nk = n * K + k;
      #pragma unroll
      for (int i = 0; i < 3; i++) {
        const int pp = p - i;
        if (pp < 0 || (pp & 1) || pp / 2 >= PO) continue;
        #pragma unroll
        for (int j = 0; j < 3; j++) {
          const int qq = q - j;
          if (qq < 0 || (qq & 1) || qq / 2 >= QO) continue;
          atomicMax(reinterpret_cast<int *>(&t[(nk * PO + pp / 2) * QO + qq / 2]), __float_as_int(v));
        }
      }
"""

open(f"{out}/conv_entry.lua", "w").write(spec("conv2d", "launch_conv2d"))
open(f"{out}/crmp_entry.lua", "w").write(spec("conv_relu_maxpool", "launch_conv_relu_maxpool"))
wg = ["precision=tf32", "api=wgmma", "bk=32", "bn=96", "stages=3"]
conv = cut(applied("conv2d", "recipe_igemm.lua", *wg, "patch=false"), "void launch_conv2d")
open(f"{out}/conv_gather.cu", "w").write(conv + CONV_LAUNCH)
hand = open("bench/proto/conv/conv_patch.cu").read()
open(f"{out}/conv_patch.cu", "w").write(conv[: conv.index("__global__")] + hand)
crmp = cut(applied("conv_relu_maxpool", "recipe_fused.lua", *wg, "patch=false"), "void launch_conv_relu_maxpool")
grid = "dim3((K + 95) / 96, (N * P * Q + 127) / 128), 256, 89088, stream"
open(f"{out}/crmp_base.cu", "w").write(crmp + CRMP_LAUNCH % (
    f"conv2d<<<{grid}>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t);\n"
    "  maxpool2d<<<(npool + 255) / 256, 256, 0, stream>>>(N * K, P, Q, PO, QO, t, y);"))
store = re.search(r"      t\[idx\] = sum;\n      t\[\(idx\)\] = fmaxf\(t\[\(idx\)\], 0.0f\);\n", crmp)
atomic = crmp[: store.start()] + POOL_SCATTER + crmp[store.end():]
atomic = atomic.replace("float *__restrict__ t) {", "float *__restrict__ t, int PO, int QO) {", 1)
atomic += "__global__ void pool_init(int n, float *y) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = 0.0f;\n}\n\n"
open(f"{out}/crmp_atomic.cu", "w").write(atomic + CRMP_LAUNCH % (
    "pool_init<<<(npool + 255) / 256, 256, 0, stream>>>(npool, y);\n"
    f"  conv2d<<<{grid}>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, y, PO, QO);"))
