#!/usr/bin/env python3
"""bench/proto/conv/make_candidates.py DIR KREWRITE: writes into DIR what run.sh times, from the repository's
own files: conv_entry.lua and crmp_entry.lua (the examples' specs through their launchers, tolerance 1e-3),
conv_gather.cu (implicit_gemm's tf32 wgmma kernel with the gather, patch=false) and crmp_base.cu
(conv_relu_maxpool's recipe_fused in tf32) with launchers of their own, crmp_atomic.cu (crmp_base with the
max-pool folded into the convolution's epilogue by atomicMax), and conv_patch.cu (the hand-written kernel
and launcher behind the emitted helpers); and for run_tile.sh, conv_relu_maxpool at 256 x 96 tiles (and 128 x 96)
with the max-pool computed from the convolution's staged epilogue tile, in the variants described where
each is made below (crmp_*). Run from the repository's root."""
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

# conv_relu_maxpool at its best tiles (256 x 96, 4 stages, the row patches): the pool as its own kernel
# (crmp_best), and the pool computed from the staged epilogue's tile (crmp_tile): the ReLU'd outputs
# left in the tile, then each pooled output whose window meets the tile's rows takes the maximum of
# the window's elements there and folds it into y by one atomicMax on its bits (y zeroed first; the
# values are ReLU'd, so not negative), so t never reaches memory and a pooled output gets one atomic
# from each tile its window meets.
big = ["precision=tf32", "api=wgmma", "bk=32", "bn=96", "bm=256", "tm=8", "tn=12", "stages=4"]
crmp = cut(applied("conv_relu_maxpool", "recipe_fused.lua", *big), "void launch_conv_relu_maxpool")
grid = "dim3((K + 95) / 96, (N * P * Q + 255) / 256), 512, 184320, stream"
CRMP_LAUNCH_BIG = CRMP_LAUNCH.replace("89088", "184320")
open(f"{out}/crmp_best.cu", "w").write(crmp + CRMP_LAUNCH_BIG % (
    f"conv2d<<<{grid}>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t);\n"
    "  maxpool2d<<<(npool + 255) / 256, 256, 0, stream>>>(N * K, P, Q, PO, QO, t, y);"))
TILE_POOL = """  const int Mtot = N * P * Q, mend = min(m0 + BM, Mtot);
  for (int eo = 0; eo < BM * BN / NT; eo++) {
    const int no_1 = tid / BM + eo * 2;
    const int k = n0 + no_1;
    if (m0 + mo < Mtot && k < K) out_tile[no_1][mo] = fmaxf(b[k] + out_tile[no_1][mo], 0.0f);
  }
  __syncthreads();
  const int rf = m0 / Q, rl = (mend - 1) / Q;
  const int pof = min(max(0, (rf % P - 1) / 2), PO - 1), pol = min(PO - 1, (rl % P) / 2);
  const int prf = (rf / P) * PO + pof, npr = (rl / P) * PO + pol - prf + 1;
  for (int e = tid; e < npr * QO * BN; e += NT) {
    const int qo = e % QO, rest = e / QO;
    const int pr = prf + rest % npr, nc = rest / npr;
    const int k = n0 + nc;
    if (k >= K) continue;
    const int n = pr / PO, po = pr - n * PO;
    const int mw = (n * P + 2 * po) * Q + 2 * qo - m0;
    float mx = 0.0f;
    bool any = false;
    #pragma unroll
    for (int i = 0; i < 3; i++) {
      #pragma unroll
      for (int j = 0; j < 3; j++) {
        const int m = mw + i * Q + j;
        if (m >= 0 && m < mend - m0) { mx = fmaxf(mx, out_tile[nc][m]); any = true; }
      }
    }
    if (any) atomicMax(reinterpret_cast<int *>(&y[((n * K + k) * PO + po) * QO + qo]), __float_as_int(mx));
  }
}
"""
# Variants of crmp_tile for where its time goes (timed only, not all of them right): crmp_warp maps a
# warp's lanes along qo and its warps over (pooled row, channel), so each item's indices take no
# division; crmp_warp_store stores instead of atomicMax (wrong where a window spans two tiles);
# crmp_nopool leaves the pool out (the convolution alone, t never written).
WARP_POOL = TILE_POOL[: TILE_POOL.index("  for (int e = tid;")] + """  for (int rc = tid / 32; rc < npr * BN; rc += NT / 32) {
    const int pr = prf + rc % npr, nc = rc / npr;
    const int k = n0 + nc;
    if (k >= K) continue;
    const int n = pr / PO, po = pr - n * PO;
    float *yrow = y + ((n * K + k) * PO + po) * QO;
    const float *trow = out_tile[nc];
    for (int qo = tid % 32; qo < QO; qo += 32) {
      const int mw = (n * P + 2 * po) * Q + 2 * qo - m0;
      float mx = 0.0f;
      bool any = false;
      #pragma unroll
      for (int i = 0; i < 3; i++) {
        #pragma unroll
        for (int j = 0; j < 3; j++) {
          const int m = mw + i * Q + j;
          if (m >= 0 && m < mend - m0) { mx = fmaxf(mx, trow[m]); any = true; }
        }
      }
      if (any) ATOMIC;
    }
  }
}
"""
def variant(name, body, base=None, bm=256, nt=512, shmem=184320):
    base = base or crmp
    lp = re.search(r"  for \(int eo = 0; eo < BM \* BN / NT; eo\+\+\) \{\n.*?\n  \}\n\}\n", base, flags=re.S)
    assert lp, "the staged epilogue's loop"
    v = base[: lp.start()] + body + base[lp.end():]
    g = v.index("__global__ void __launch_bounds__")
    v = v[:g] + "__device__ __forceinline__ float kr_relu_bias(float b, float v) { return fmaxf(b + v, 0.0f); }\n\n" + v[g:]
    v = v.replace("float *__restrict__ t) {", "float *__restrict__ t, int PO, int QO, float *__restrict__ y) {", 1)
    gr = f"dim3((K + 95) / 96, (N * P * Q + {bm - 1}) / {bm}), {nt}, {shmem}, stream"
    open(f"{out}/{name}.cu", "w").write(v + CRMP_LAUNCH.replace("89088", str(shmem)) % (
        "cudaMemsetAsync(y, 0, sizeof(float) * npool, stream);\n"
        f"  conv2d<<<{gr}>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t, PO, QO, y);"))
variant("crmp_tile", TILE_POOL)
variant("crmp_warp", WARP_POOL.replace("ATOMIC", "atomicMax(reinterpret_cast<int *>(&yrow[qo]), __float_as_int(mx))"))
variant("crmp_warp_store", WARP_POOL.replace("ATOMIC", "yrow[qo] = mx"))
variant("crmp_nopool", TILE_POOL[: TILE_POOL.index("  __syncthreads();")]
        + "  __syncthreads();\n  if (out_tile[tid % BN][tid % BM] == 1234.5f) y[0] = 1.0f;   // keeps the work\n}\n")

# crmp_fast: the pool phase without divisions or per-element tests where it can: a warp takes a channel
# (its lanes along qo) and walks the tile's pooled rows (n, po) by increments; a window wholly inside
# the tile (no other tile sees it) is read unguarded and stored, one that crosses the tile's edge is
# read under guards and folded in by atomicMax.
FAST_POOL = TILE_POOL[: TILE_POOL.index("  for (int e = tid;")] + """  const int pl = tid % 32, tl = mend - m0;
  for (int nc = tid / 32; nc < BN; nc += NT / 32) {
    const int k = n0 + nc;
    if (k >= K) break;
    const float *trow = out_tile[nc];
    int n = prf / PO, po = prf - (prf / PO) * PO;
    for (int r = 0; r < npr; r++) {
      const int mrow = (n * P + 2 * po) * Q - m0;
      float *yrow = y + ((n * K + k) * PO + po) * QO;
      for (int qo = pl; qo < QO; qo += 32) {
        const int mw = mrow + 2 * qo;
        if (mw >= 0 && mw + 2 * Q + 2 < tl) {
          float mx = trow[mw];
          #pragma unroll
          for (int i = 0; i < 3; i++) {
            #pragma unroll
            for (int j = 0; j < 3; j++) mx = fmaxf(mx, trow[mw + i * Q + j]);
          }
          yrow[qo] = mx;
        } else {
          float mx = 0.0f;
          bool any = false;
          #pragma unroll
          for (int i = 0; i < 3; i++) {
            #pragma unroll
            for (int j = 0; j < 3; j++) {
              const int m = mw + i * Q + j;
              if (m >= 0 && m < tl) { mx = fmaxf(mx, trow[m]); any = true; }
            }
          }
          if (any) atomicMax(reinterpret_cast<int *>(&yrow[qo]), __float_as_int(mx));
        }
      }
      if (++po == PO) { po = 0; n++; }
    }
  }
}
"""
variant("crmp_fast", FAST_POOL)

# crmp_walk: a warp takes a channel, its lanes along qo, and walks the tile's conv rows once: each row's
# three columns of a lane's window reduced to one value (h), kept for the next two rows, so a pooled row
# is complete at every even row; windows cut by the tile's first or last row, or by an image's end,
# fold in by atomicMax, the others are stored. crmp_walk_late adds the bias and ReLU after the maximum
# (both monotone, so the same value), skipping the pass over the tile that applies them.
WALK_POOL = """  const int Mtot = N * P * Q, mend = min(m0 + BM, Mtot), tl = mend - m0;
RELU  __syncthreads();
  const int rf = m0 / Q, rl = (mend - 1) / Q, pl = tid % 32;
  for (int nc = tid / 32; nc < BN; nc += NT / 32) {
    const int k = n0 + nc;
    if (k >= K) break;
    const float *trow = out_tile[nc];
    BIAS
    for (int qo = pl; qo - pl < QO; qo += 32) {
      int n = rf / P, p = rf - n * P;
      float h1 = 0.0f, h2 = 0.0f;
      bool c1 = false, c2 = false;   /* rows p - 1 and p - 2 wholly read (all three columns in the tile) */
      for (int r = rf; r <= rl; r++) {
        const int mb = r * Q - m0 + 2 * qo;
        float h = 0.0f;
        bool c = true;
        #pragma unroll
        for (int j = 0; j < 3; j++) {
          if (mb + j >= 0 && mb + j < tl) h = fmaxf(h, trow[mb + j]);
          else c = false;
        }
        if (qo < QO && p >= 2 && !(p & 1) && p / 2 - 1 < PO) {   /* pooled row p / 2 - 1 ends here */
          const float v = FIN(fmaxf(fmaxf(h2, h1), h));
          float *at = y + ((n * K + k) * PO + p / 2 - 1) * QO + qo;
          if (c && c1 && c2) *at = v;
          else atomicMax(reinterpret_cast<int *>(at), __float_as_int(v));
        }
        h2 = h1, c2 = c1, h1 = h, c1 = c;
        if (++p == P) {   /* the image ends: its last pooled row ended at its last even row */
          p = 0, n++;
          h1 = h2 = 0.0f, c1 = c2 = false;
        }
      }
      /* pooled rows the tile's last rows begin: rows p - 2, p - 1 (p even) or p - 1 alone (p odd) */
      if (qo < QO && p > 0) {
        const int po = (p - 1) / 2;
        if (po < PO && 2 * po + 2 >= p) {
          const float v = FIN((p & 1) ? h1 : fmaxf(h2, h1));
          atomicMax(reinterpret_cast<int *>(y + ((n * K + k) * PO + po) * QO + qo), __float_as_int(v));
        }
      }
    }
  }
}
"""
RELU_LOOP = """  for (int eo = 0; eo < BM * BN / NT; eo++) {
    const int no_1 = tid / BM + eo * 2;
    const int k = n0 + no_1;
    if (m0 + mo < Mtot && k < K) out_tile[no_1][mo] = fmaxf(b[k] + out_tile[no_1][mo], 0.0f);
  }
"""
variant("crmp_walk", WALK_POOL.replace("RELU", RELU_LOOP).replace("BIAS", "").replace("FIN(", "("))
variant("crmp_walk_late", WALK_POOL.replace("RELU", "").replace("BIAS", "const float bk = b[k];")
        .replace("FIN(", "kr_relu_bias(bk, ").replace("float h = 0.0f;", "float h = -INFINITY;")
        .replace("h1 = 0.0f, h2 = 0.0f", "h1 = -INFINITY, h2 = -INFINITY").replace("h1 = h2 = 0.0f", "h1 = h2 = -INFINITY"))

# crmp_walk2: crmp_walk_late with fewer instructions a row (the pool phase runs alone on the SM, so its
# instruction count is its time): a lane loads its window's first two columns and takes the third from
# the next lane by a shuffle; rows wholly inside the tile are read without tests.
WALK2 = """  const int Mtot = N * P * Q, mend = min(m0 + BM, Mtot), tl = mend - m0;
  __syncthreads();
  const int rf = m0 / Q, rl = (mend - 1) / Q, pl = tid % 32;
  for (int nc = tid / 32; nc < BN; nc += NT / 32) {
    const int k = n0 + nc;
    if (k >= K) break;
    const float *trow = out_tile[nc];
    const float bk = b[k];
    for (int qo0 = 0; qo0 < QO; qo0 += 32) {
      const int qo = qo0 + pl, q = 2 * qo;
      int n = rf / P, p = rf - n * P;
      float *yn = y + (n * K + k) * PO * QO + qo;
      float h1 = -INFINITY, h2 = -INFINITY;
      bool c1 = false, c2 = false, s1 = false, s2 = false;   /* s: a row with an element in the tile */
      for (int r = rf; r <= rl; r++) {
        const int mb = r * Q - m0 + q;
        float a0 = -INFINITY, a1 = -INFINITY, a2;
        bool c, sn;
        if (r != rf && r != rl) {
          if (q < Q) a0 = trow[mb];
          if (q + 1 < Q) a1 = trow[mb + 1];
          c = sn = true;
        } else {
          if (q < Q && mb >= 0 && mb < tl) a0 = trow[mb];
          if (q + 1 < Q && mb + 1 >= 0 && mb + 1 < tl) a1 = trow[mb + 1];
          c = mb >= 0 && mb + 2 < tl;
          sn = mb + 2 >= 0 && mb < tl;
        }
        a2 = __shfl_down_sync(0xffffffffu, a0, 1);
        if (pl == 31) a2 = q + 2 < Q && mb + 2 >= 0 && mb + 2 < tl ? trow[mb + 2] : -INFINITY;
        const float h = fmaxf(fmaxf(a0, a1), a2);
        if (qo < QO && p >= 2 && !(p & 1) && p / 2 - 1 < PO) {
          const float v = fmaxf(bk + fmaxf(fmaxf(h2, h1), h), 0.0f);
          float *at = yn + (p / 2 - 1) * QO;
          if (c && c1 && c2) *at = v;
          else if (sn || s1 || s2) atomicMax(reinterpret_cast<int *>(at), __float_as_int(v));
        }
        h2 = h1, c2 = c1, s2 = s1, h1 = h, c1 = c, s1 = sn;
        if (++p == P) {
          p = 0, n++, yn += K * PO * QO;
          h1 = h2 = -INFINITY, c1 = c2 = s1 = s2 = false;
        }
      }
      if (qo < QO && p > 0) {
        const int po = (p - 1) / 2;
        if (po < PO && (s1 || ((p & 1) == 0 && s2))) {
          const float v = fmaxf(bk + ((p & 1) ? h1 : fmaxf(h2, h1)), 0.0f);
          atomicMax(reinterpret_cast<int *>(yn + po * QO), __float_as_int(v));
        }
      }
    }
  }
}
"""
variant("crmp_walk2", WALK2)

# The same at 128 x 96 tiles, 3 stages (two blocks an SM, so one block's pool phase overlaps the other's
# k loop), beside that tiling's own pool kernel.
mid = ["precision=tf32", "api=wgmma", "bk=32", "bn=96", "bm=128", "tm=8", "tn=6", "stages=3"]
crmp128 = cut(applied("conv_relu_maxpool", "recipe_fused.lua", *mid), "void launch_conv_relu_maxpool")
open(f"{out}/crmp_best128.cu", "w").write(crmp128 + CRMP_LAUNCH % (
    "conv2d<<<dim3((K + 95) / 96, (N * P * Q + 127) / 128), 256, 89088, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t);\n"
    "  maxpool2d<<<(npool + 255) / 256, 256, 0, stream>>>(N * K, P, Q, PO, QO, t, y);"))
variant("crmp_walk2_128", WALK2, crmp128, 128, 256, 89088)

# crmp_vert: the pool vertical first: a warp takes a channel, a lane a conv column (chunks of 30 columns,
# the chunk's last two lanes reading the next chunk's first two), and walks the tile's rows with one load
# a row, keeping the maximum over the last three rows; at each even row the even lanes take the next two
# lanes' values by shuffle and write their pooled output (stored when its window lies wholly in the tile,
# else folded in by atomicMax when the window meets the tile at all).
VERT = """  const int Mtot = N * P * Q, mend = min(m0 + BM, Mtot), tl = mend - m0;
  __syncthreads();
  const int rf = m0 / Q, rl = (mend - 1) / Q, pl = tid % 32;
  for (int nc = tid / 32; nc < BN; nc += NT / 32) {
    const int k = n0 + nc;
    if (k >= K) break;
    const float *trow = out_tile[nc];
    const float bk = b[k];
    for (int q0 = 0; q0 + 2 < Q; q0 += 30) {
      const int q = q0 + pl;
      const bool mine = !(pl & 1) && pl < 30 && q + 2 < Q;   /* this lane writes pooled column q / 2 */
      int n = rf / P, p = rf - n * P;
      float *yn = y + (n * K + k) * PO * QO + q / 2;
      float v1 = -INFINITY, v2 = -INFINITY;   /* this column at rows p - 1 and p - 2 */
      int mb = rf * Q - m0 + q;               /* row r, this column, in the tile */
      for (int r = rf; r <= rl; r++, mb += Q) {
        float v = -INFINITY;
        if (q < Q && mb >= 0 && mb < tl) v = trow[mb];
        const float c3 = fmaxf(fmaxf(v2, v1), v);
        const float c31 = __shfl_down_sync(0xffffffffu, c3, 1), c32 = __shfl_down_sync(0xffffffffu, c3, 2);
        if (mine && p >= 2 && !(p & 1) && p / 2 - 1 < PO) {
          const int mf = mb - 2 * Q;   /* the window's first element */
          float *at = yn + (p / 2 - 1) * QO;
          const float m = fmaxf(bk + fmaxf(fmaxf(c3, c31), c32), 0.0f);
          if (mf >= 0 && mb + 2 < tl) *at = m;
          else if ((mf + 2 >= 0 && mf < tl) || (mf + Q + 2 >= 0 && mf + Q < tl) || (mb + 2 >= 0 && mb < tl))
            atomicMax(reinterpret_cast<int *>(at), __float_as_int(m));
        }
        v2 = v1, v1 = v;
        if (++p == P) {
          p = 0, n++, yn += K * PO * QO;
          v1 = v2 = -INFINITY;
        }
      }
      /* the pooled row the tile's last rows begin: rows p - 2 and p - 1 (p even) or p - 1 (p odd) */
      const float c2 = (p & 1) ? v1 : fmaxf(v2, v1);
      const float c21 = __shfl_down_sync(0xffffffffu, c2, 1), c22 = __shfl_down_sync(0xffffffffu, c2, 2);
      if (mine && p > 0) {
        const int po = (p - 1) / 2;
        const int mf = (rl - (p & 1 ? 0 : 1)) * Q - m0 + q;   /* the window's first row in the tile */
        const bool meets = (mf + 2 >= 0 && mf < tl) || (!(p & 1) && mf + Q + 2 >= 0 && mf + Q < tl);
        if (po < PO && meets)
          atomicMax(reinterpret_cast<int *>(yn + po * QO), __float_as_int(fmaxf(bk + fmaxf(fmaxf(c2, c21), c22), 0.0f)));
      }
    }
  }
}
"""
variant("crmp_vert", VERT)

# crmp_ilp: crmp_walk_late with a warp's channels walked together (unrolled), so each row's loads and
# maxima for its BN / 16 channels are independent of each other: the walks above were chains of
# dependent shared-memory loads, one channel at a time, with 16 warps an SM to hide them. Windows that do
# not meet the tile are skipped (no atomicMax of nothing on an element another block stores).
ILP = """  const int Mtot = N * P * Q, mend = min(m0 + BM, Mtot), tl = mend - m0;
  constexpr int CH = BN / (NT / 32);
  __syncthreads();
  const int rf = m0 / Q, rl = (mend - 1) / Q, pl = tid % 32, c0 = tid / 32;
  float bk[CH];
  #pragma unroll
  for (int u = 0; u < CH; u++) bk[u] = n0 + c0 + u * (NT / 32) < K ? b[n0 + c0 + u * (NT / 32)] : 0.0f;
  for (int qo = pl; qo - pl < QO; qo += 32) {
    const bool live = qo < QO;
    int n = rf / P, p = rf - n * P;
    int yo = (n * K + n0 + c0) * PO * QO + qo;   /* y at (n, channel c0, pooled row 0, qo) */
    float h1[CH], h2[CH];
    #pragma unroll
    for (int u = 0; u < CH; u++) h1[u] = h2[u] = -INFINITY;
    bool c1 = false, c2 = false, s1 = false, s2 = false;
    int mb = rf * Q - m0 + 2 * qo;
    for (int r = rf; r <= rl; r++, mb += Q) {
      const bool whole = r != rf && r != rl;
      const bool g0 = mb >= 0 && mb < tl, g1 = mb + 1 >= 0 && mb + 1 < tl, g2 = mb + 2 >= 0 && mb + 2 < tl;
      const bool c = whole || (g0 && g2), sn = whole || g0 || g1 || g2;
      const bool done = live && p >= 2 && !(p & 1) && p / 2 - 1 < PO;
      const bool whole_w = c && c1 && c2, meets = sn || s1 || s2;
      #pragma unroll
      for (int u = 0; u < CH; u++) {
        const float *tr = out_tile[c0 + u * (NT / 32)];
        float h = -INFINITY;
        if (live) {
          if (whole) h = fmaxf(fmaxf(tr[mb], tr[mb + 1]), tr[mb + 2]);
          else {
            if (g0) h = tr[mb];
            if (g1) h = fmaxf(h, tr[mb + 1]);
            if (g2) h = fmaxf(h, tr[mb + 2]);
          }
        }
        if (done && n0 + c0 + u * (NT / 32) < K) {
          const float v = fmaxf(bk[u] + fmaxf(fmaxf(h2[u], h1[u]), h), 0.0f);
          float *at = y + yo + u * (NT / 32) * PO * QO + (p / 2 - 1) * QO;
          if (whole_w) *at = v;
          else if (meets) atomicMax(reinterpret_cast<int *>(at), __float_as_int(v));
        }
        h2[u] = h1[u], h1[u] = h;
      }
      c2 = c1, s2 = s1, c1 = c, s1 = sn;
      if (++p == P) {
        p = 0, n++, yo += K * PO * QO;
        #pragma unroll
        for (int u = 0; u < CH; u++) h1[u] = h2[u] = -INFINITY;
        c1 = c2 = s1 = s2 = false;
      }
    }
    if (live && p > 0) {   /* the pooled row the tile's last rows begin */
      const int po = (p - 1) / 2;
      if (po < PO && (s1 || (!(p & 1) && s2))) {
        #pragma unroll
        for (int u = 0; u < CH; u++)
          if (n0 + c0 + u * (NT / 32) < K)
            atomicMax(reinterpret_cast<int *>(y + yo + u * (NT / 32) * PO * QO + po * QO),
                      __float_as_int(fmaxf(bk[u] + ((p & 1) ? h1[u] : fmaxf(h2[u], h1[u])), 0.0f)));
      }
    }
  }
}
"""
variant("crmp_ilp", ILP)

# What implicit_gemm emits for recipe_fused -D pool=true (the pool walked from the output tile), through a
# launcher of its own (y filled with all-ones bytes, as the launch change's fill does): as emitted
# (crmp_emitted), and without the per-output store of t and its read back (crmp_emitted_nostore: the
# value put into the tile directly), to see what storing t costs the walk.
emitted = cut(applied("conv_relu_maxpool", "recipe_fused.lua", *big, "pool=true"), "void launch_conv_relu_maxpool")
EMIT_LAUNCH = CRMP_LAUNCH_BIG % (
    "cudaMemsetAsync(y, 0xff, sizeof(float) * npool, stream);\n"
    f"  conv2d<<<{grid}>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, t, N * K, PO, QO, y);")
open(f"{out}/crmp_emitted.cu", "w").write(emitted + EMIT_LAUNCH)
phase_a = re.search(r"      t\[idx\] = sum;\n      t\[\(idx\)\] = fmaxf\(t\[\(idx\)\], 0\.0f\);\n      (out_tile\[\w+\]\[\w+\]) = t\[\(idx\)\];\n", emitted)
if phase_a:   # (since fuse's store = false, recipe_fused leaves t unstored itself: no such statements)
    nostore = emitted[: phase_a.start()] + f"      {phase_a.group(1)} = fmaxf(sum, 0.0f);\n" + emitted[phase_a.end():]
    open(f"{out}/crmp_emitted_nostore.cu", "w").write(nostore + EMIT_LAUNCH)
