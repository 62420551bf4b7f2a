#!/usr/bin/env python3
"""bench/proto/conv/make_epilogue.py DIR KREWRITE: conv_relu_maxpool's best recipe (recipe_fused at 256 x 96 tf32 wgmma
tiles, 3 stages, persistent, order = descending; the pool as its own kernel), through a launcher of its own, as
emitted (e_base) and with its epilogue's bias read from a shared copy the block fills once before its tile loop
(e_bias: the epilogue's b[k], 48 loads a thread a tile, waited on as long-scoreboard stalls), and with the
epilogue's loop unrolled by 4 as well (e_bias_unroll)."""
import subprocess, sys

d, kr = sys.argv[1], sys.argv[2]
args = [kr, "apply", "examples/conv_relu_maxpool/recipe_fused.lua", "examples/conv_relu_maxpool/kernel.cu"]
for x in ["precision=tf32", "api=wgmma", "bk=32", "bn=96", "bm=256", "tm=8", "tn=12", "stages=3", "persistent=true",
          "order=descending"]:
    args += ["-D", x]
t = subprocess.run(args, check=True, capture_output=True, text=True).stdout
t = t[: t.index("void launch_conv_relu_maxpool")]
LAUNCH = """void launch_conv_relu_maxpool(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                              float *x, float *w, float *b, float *t, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int PO = (P - 3) / 2 + 1;
  int QO = (Q - 3) / 2 + 1;
  int npool = N * K * PO * QO;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, SHMEM);
  conv2d<<<dim3((K + 95) / 96, min((N * P * Q + 255) / 256, sms)), 512, SHMEM, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t);
  maxpool2d<<<(npool + 255) / 256, 256, 0, stream>>>(N * K, P, Q, PO, QO, t, y);
}
"""
import re
shmem = re.search(r"the tiles in (\d+) bytes of dynamic shared memory", t).group(1)
LAUNCH = LAUNCH.replace("SHMEM", shmem)
open(f"{d}/e_base.cu", "w").write(t + LAUNCH)
loop = "  for (int kr_tile = blockIdx.y;"
assert loop in t and "        float sum = b[k];\n" in t
bias = t.replace(loop, "  __shared__ float kr_b[BN];\n  for (int i = threadIdx.x; i < BN; i += blockDim.x) kr_b[i] = blockIdx.x * BN + i < K ? b[blockIdx.x * BN + i] : 0.0f;\n"
                 "  __syncthreads();\n" + loop, 1).replace("        float sum = b[k];\n", "        float sum = kr_b[no_1];\n", 1)
open(f"{d}/e_bias.cu", "w").write(bias + LAUNCH)
eo = "    for (int eo = 0; eo < BM * BN / NT; eo++) {\n"
assert eo in bias
open(f"{d}/e_bias_unroll.cu", "w").write(bias.replace(eo, "    #pragma unroll 4\n" + eo, 1) + LAUNCH)
