"""bench/proto/conv/crmp_launch.py: what make_persistent.py, make_dynamic.py and make_epilogue.py share: conv_relu_maxpool's
recipe_fused applied at 256 x 96 tf32 wgmma tiles (the kernels, without the .cu's host code), and a launcher of the
candidate's own with the convolution's grid along m at most the GPU's SMs (one block an SM), as persistent's launch
change makes it, then the pool kernel or, fused (-D pool=true), y filled with all-ones bytes first."""
import subprocess

TILES = ["precision=tf32", "api=wgmma", "bk=32", "bn=96", "bm=256", "tm=8", "tn=12", "persistent=true"]


def applied(kr, *defs):
    args = [kr, "apply", "examples/conv_relu_maxpool/recipe_fused.lua", "examples/conv_relu_maxpool/kernel.cu"]
    for d in TILES + list(defs):
        args += ["-D", d]
    t = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return t[: t.index("void launch_conv_relu_maxpool")]


def launcher(shmem=184320, pooled=False, pool_grid="(npool + 255) / 256"):
    conv_args = "N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t" + (", N * K, PO, QO, y" if pooled else "")
    after = "" if pooled else f"  maxpool2d<<<{pool_grid}, 256, 0, stream>>>(N * K, P, Q, PO, QO, t, y);\n"
    before = "  cudaMemsetAsync(y, 0xff, sizeof(float) * npool, stream);\n" if pooled else ""
    return f"""void launch_conv_relu_maxpool(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                              float *x, float *w, float *b, float *t, float *y, cudaStream_t stream) {{
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int PO = (P - 3) / 2 + 1;
  int QO = (Q - 3) / 2 + 1;
  int npool = N * K * PO * QO;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, {shmem});
{before}  conv2d<<<dim3((K + 95) / 96, min((N * P * Q + 255) / 256, sms)), 512, {shmem}, stream>>>({conv_args});
{after}}}
"""
