#include <cuda_pipeline.h>
// A direct NCHW convolution with stride and zero padding (the padding test around the update).
#include <cuda_runtime.h>

// krewrite implicit_gemm: x / d and x % d for 0 <= x < 2^31 and a run-time d >= 1, as a multiply-high, an add and
// a shift (Granlund and Montgomery): mul = 2^32 * (2^shift - d) / d + 1 with 2^shift the least power of two >= d
struct kr_fastdiv {
  unsigned mul, shift;
  int d;
};

static __device__ __forceinline__ kr_fastdiv kr_fastdiv_of(int d) {
  kr_fastdiv f;
  f.d = d;
  f.shift = 32 - __clz(d - 1);
  f.mul = (unsigned)(((1ull << 32) * ((1ull << f.shift) - (unsigned long long)d)) / (unsigned long long)d + 1);
  return f;
}

static __device__ __forceinline__ int kr_div(int x, kr_fastdiv f) {
  return (int)((__umulhi((unsigned)x, f.mul) + (unsigned)x) >> f.shift);
}

static __device__ __forceinline__ int kr_mod(int x, kr_fastdiv f) { return x - kr_div(x, f) * f.d; }

// krewrite tensor_core: d (64 x 96, this warp's 16 rows) += a (64 x 8, registers) * the 8 x 96 tile the descriptor names (k-major), for the warpgroup (PTX wgmma.mma_async, tf32, issued: wait for it with kr_wgmma_wait)
static __device__ __forceinline__ void kr_wgmma_tf32_n96(float (&d)[48], const unsigned (&a)[4], unsigned long long desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n96k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, {%48, %49, %50, %51}, %52, 1, 1, 1;\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

// krewrite tensor_core: keeps the compiler from moving d's registers across a product in flight
static __device__ __forceinline__ void kr_wgmma_hold_n96(float (&d)[48]) {
  #pragma unroll
  for (int i = 0; i < 48; i++) asm volatile("" : "+f"(d[i]) :: "memory");
}

// krewrite tensor_core: the wgmma descriptor of a k-major tile of 128-byte rows in shared memory, swizzled by 128 bytes, 8-row groups 1024 bytes apart
static __device__ __forceinline__ unsigned long long kr_wgmma_desc(const void *tile) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(tile);
  return (unsigned long long)((a >> 4) & 0x3fff) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

// krewrite tensor_core: the warpgroup's registers ready for wgmma (PTX wgmma.fence)
static __device__ __forceinline__ void kr_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// krewrite tensor_core: the products issued since the last commit, one group (PTX wgmma.commit_group)
static __device__ __forceinline__ void kr_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// krewrite tensor_core: every group finished (PTX wgmma.wait_group 0)
static __device__ __forceinline__ void kr_wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }

// krewrite tensor_core: a product's fragments kept in their registers until here (it reads them until its group is waited for)
static __device__ __forceinline__ void kr_wgmma_keep(const unsigned (&a)[4]) {
  asm volatile("" :: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]) : "memory");
}

// krewrite tensor_core: this thread's shared-memory writes ordered before the tensor cores' reads (PTX fence.proxy.async)
static __device__ __forceinline__ void kr_fence_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// krewrite tensor_core: x rounded to tf32, to nearest with ties away from zero (PTX cvt.rna.tf32.f32)
static __device__ __forceinline__ unsigned kr_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

__global__ void __launch_bounds__(256, 2) conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, float *x, float *w, float *b, float *y) {
  // krewrite tile: 128 x 96 outputs of (n, k) per block, k tiles of 32; staged in shared memory: x, w
  // krewrite tensor_core: tf32 on the tensor cores (wgmma 16 x 8 x 8), a 16 x 96 tile per warp
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 128, BN = 96, BK = 32;
  constexpr int TM = 1, TN = 48, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 16, WN = 96, MM = 16, MN = 8, MK = 8;
  constexpr int FM = WM / MM, FN = WN / MN;
  // krewrite implicit_gemm: the groups' run-time divisors, each division a multiply and a shift (the multipliers computed once per block, a divisor a thread)
  __shared__ kr_fastdiv kr_divs[6];
  for (int de = threadIdx.x; de < 6; de += blockDim.x) kr_divs[de] = kr_fastdiv_of(de == 0 ? ((P) * (Q)) : de == 1 ? (Q) : de == 2 ? (P) : de == 3 ? ((R) * (S)) : de == 4 ? (S) : (R));
  __syncthreads();
  // krewrite tile: the tiles in 89088 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(1024) unsigned char smem[];
  float (*x_tile)[BK][BM + 8] = reinterpret_cast<float (*)[BK][BM + 8]>(smem + 0);
  float (*w_tile)[BN * BK] = reinterpret_cast<float (*)[BN * BK]>(smem + 52224);
  // krewrite implicit_gemm: the index table, the k parts of a k tile's indices (two slots)
  __shared__ __align__(16) int ktab[2][BK][4];
  // krewrite implicit_gemm: under 'x''s patches, the fragments' k parts of each stage's tile (by k % 4, then k / 4) and the k tile's rows' parts (two slots)
  __shared__ __align__(16) int x_ftab[STAGES][4][BK / 4];
  __shared__ __align__(16) int x_rtab[2][BK][4];
  const int tid = threadIdx.x;
  // krewrite persistent: the block walks the m tiles blockIdx.y, blockIdx.y + gridDim.y, ...
  const int kr_mtiles = ((((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K))) * (P) * (Q) + BM - 1) / BM;
  for (int kr_tile = blockIdx.y; kr_tile < kr_mtiles; kr_tile += gridDim.y) {
    const kr_fastdiv div = kr_divs[0];
    const kr_fastdiv div_1 = kr_divs[1];
    const kr_fastdiv div_2 = kr_divs[2];
    const kr_fastdiv div_3 = kr_divs[3];
    const kr_fastdiv div_4 = kr_divs[4];
    const kr_fastdiv div_5 = kr_divs[5];
    const int m0 = kr_tile * BM, n0 = blockIdx.x * BN;
    // krewrite implicit_gemm: the axes of this thread's row of the x tile, the same in every load
    const int x_row = m0 + tid % BM;
    const int x_n = kr_div(x_row, div);
    const int x_p = kr_mod(kr_div(x_row, div_1), div_2);
    const int x_q = kr_mod(x_row, div_1);
    const int x_base = -pad - W * pad + stride * (x_q) + W * stride * (x_p) + C * H * W * (x_n);
    bool x_in;
    {
      const int q = x_q;
      const int p = x_p;
      const int n = x_n;
      x_in = q < Q && p < P && n < ((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K)) && q < Q && p < P;
    }
    const int x_cond = -pad + stride * (x_p);
    const int x_cond_1 = -1 + H + pad - stride * (x_p);
    const int x_cond_2 = -pad + stride * (x_q);
    const int x_cond_3 = -1 + W + pad - stride * (x_q);
    const long long x_span = (long long)x_cond + x_cond_1;
    x_in = x_in && x_span >= 0;
    const long long x_span_1 = (long long)x_cond_2 + x_cond_3;
    x_in = x_in && x_span_1 >= 0;
    // krewrite tensor_core: warpgroup w computes 64 rows of the block's product (along m), warp tid / 32 the 16 at wm0, each thread 48 of them (wgmma m64n96k8, tf32)
    const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
    const int lane = tid % 32, g = lane / 4, t = lane % 4;
    float c_frag[48];
    #pragma unroll
    for (int v = 0; v < 48; v++) c_frag[v] = 0.0f;
    // krewrite implicit_gemm: 'x' as patches of its rows: for each of the block's rows (q's other axes) and each of the k tile's (s's other axes), its columns cq * q + cs * s loaded 16 bytes at a time, where the run-time shapes allow it
    const int x_cq = stride, x_cs = 1;
    const int x_cols = x_cq * ((Q) - 1) + x_cs * ((S) - 1) + 1;
    const int x_off = (int)((((long long)(-pad - W * pad)) % 4 + 4) % 4);
    int x_lo = 0, x_hi = x_cols - 1;
    x_lo = max(x_lo, -(-pad));
    x_hi = min(x_hi, -1 + W + pad);
    const int x_lp = (x_off + x_cols + 3) / 4 * 4, x_lc = (x_hi - x_lo + 1) / 4;
    const int x_nkmax = (BK - 1 + max(S, 1) - 1) / max(S, 1) + 1;
    const int x_nrmax = (BM - 1 + max(Q, 1) - 1) / max(Q, 1) + 1;
    const bool x_patch = (Q) > 0 && (S) > 0 && x_cq >= 1 && x_cs >= 1 && x_hi >= x_lo && (x_off + x_lo) % 4 == 0 && (x_off + x_hi + 1) % 4 == 0 && (W * stride) % 4 == 0 && (C * H * W) % 4 == 0 && (H * W) % 4 == 0 && (W) % 4 == 0 && reinterpret_cast<unsigned long long>(x) % 16 == 0 && (long long)x_nrmax * x_nkmax * x_lp <= (long long)BK * (BM + 8) && x_nrmax * x_lc <= NT;
    const int x_rf = kr_div(m0, div_1);
    const int x_nr = kr_div(min(m0 + BM, (((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K))) * (P) * (Q)) - 1, div_1) - x_rf + 1;
    int x_psrc = 0, x_pdst = 0;
    bool x_pok = false;
    int x_pcond = 0;
    int x_pcond_1 = 0;
    if (x_patch) {
      const int x_prs = tid / x_lc, x_pcc = tid - x_prs * x_lc;
      {
        const int p = kr_mod(x_rf + x_prs, div_2);
        const int n = kr_div(x_rf + x_prs, div_2);
        x_pok = x_prs < x_nr && x_rf + x_prs < (((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K))) * (P) && p < P && n < ((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K)) && p < P;
        x_psrc = W * stride * p + C * H * W * n + -pad - W * pad + x_lo + 4 * x_pcc;
        x_pcond = -pad + stride * p;
        x_pcond_1 = -1 + H + pad - stride * p;
      }
      x_pdst = x_prs * x_lp + x_off + x_lo + 4 * x_pcc;
      const int zc = x_lp - 4 * x_lc, segs = x_nkmax * x_nr;
      for (int ze = tid; ze < STAGES * segs * zc; ze += NT) {
        const int zr = ze / zc, zs = ze - zr * zc;
        (&x_tile[zr / segs][0][0])[(zr % segs) * x_lp + (zs < x_off + x_lo ? zs : zs + 4 * x_lc)] = 0.0f;
      }
    }
    int x_mp[2];
    #pragma unroll
    for (int v = 0; v < 2; v++) {
      const int pm = min(m0 + wm0 + g + v * 8, (((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K))) * (P) * (Q) - 1), prow = kr_div(pm, div_1);
      x_mp[v] = (prow - x_rf) * x_lp + x_off + x_cq * (pm - prow * (Q));
    }
    const int ntiles = (((C) * (R) * (S)) - (0) + BK - 1) / BK;
    // krewrite implicit_gemm: the k parts of the indices for the k tile at 0, for the gather
    if (!x_patch) {
      for (int te = tid; te < BK; te += NT) {
        const int c = kr_div(0 + te, div_3);
        const int r = kr_mod(kr_div(0 + te, div_4), div_5);
        const int s = kr_mod(0 + te, div_4);
        ktab[0][te][0] = H * W * c + W * r + s;
        ktab[0][te][1] = r;
        ktab[0][te][2] = s;
      }
    }
    for (int te_1 = (tid + 64) % NT; te_1 < x_nkmax; te_1 += NT) {
      const int krow = kr_div(0, div_4) + te_1;
      {
        const int c = kr_div(krow, div_5);
        const int r = kr_mod(krow, div_5);
        x_rtab[0][te_1][0] = H * W * c + W * r;
        x_rtab[0][te_1][1] = r;
        x_rtab[0][te_1][2] = 0;
        x_rtab[0][te_1][3] = krow < (C) * (R);
      }
    }
    __syncthreads();
    // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
    for (int kt = 0; kt < STAGES - 1; kt++) {
      if (kt < ntiles) {
        const int k0 = (0) + kt * BK;
        if (x_patch) {
          // krewrite implicit_gemm: the k tile's patch rows, and where its fragments' k parts sit in them
          for (int te_2 = (tid + 32) % NT; te_2 < BK; te_2 += NT) {
            const int pk = k0 + te_2, pkr = kr_div(pk, div_4);
            x_ftab[kt % STAGES][te_2 % 4][te_2 / 4] = pk < (C) * (R) * (S) ? (pkr - kr_div(k0, div_4)) * x_nr * x_lp + x_cs * (pk - pkr * (S)) : 0;
          }
          if (x_pok) {
            for (int ks = 0; ks < x_nkmax; ks++) {
              const int4 rv = *reinterpret_cast<const int4 *>(&x_rtab[kt & 1][ks][0]);
              const bool in = rv.w != 0 && x_pcond + rv.y >= 0 && x_pcond_1 - rv.y >= 0;
              __pipeline_memcpy_async(&x_tile[kt % STAGES][0][0] + ks * x_nr * x_lp + x_pdst, &x[in ? x_psrc + rv.x : 0], 16, in ? 0 : 16);
            }
          }
        } else {
          #pragma unroll
          for (int it = 0; it < (BM * BK) / NT; it++) {
            const int mm = tid % BM, kk = tid / BM + it * 2;
            const int4 tv = *reinterpret_cast<const int4 *>(&ktab[kt & 1][kk][0]);
            const bool in_1 = x_in && k0 + kk < (C) * (R) * (S) && (unsigned)(x_cond + tv.y) <= (unsigned)x_span && (unsigned)(x_cond_2 + tv.z) <= (unsigned)x_span_1;
            __pipeline_memcpy_async(&x_tile[kt % STAGES][kk][mm], &x[in_1 ? x_base + tv.x : 0], sizeof(float), in_1 ? 0 : sizeof(float));
          }
        }
        #pragma unroll
        for (int it = 0; it < (BN * BK) / NT; it++) {
          const int mm = tid / BK + it * 8, kk = tid % BK;
          const int k = n0 + mm;
          const bool in_2 = k < K && k < K && k0 + kk < (C) * (R) * (S);
          __pipeline_memcpy_async(&w_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &w[in_2 ? C * R * S * k + (k0 + kk) : 0], sizeof(float), in_2 ? 0 : sizeof(float));
        }
      }
      // krewrite implicit_gemm: the k parts of the indices for the k tile at (0) + (kt + 1) * BK, for the gather
      if (!x_patch) {
        for (int te_3 = tid; te_3 < BK; te_3 += NT) {
          const int c = kr_div((0) + (kt + 1) * BK + te_3, div_3);
          const int r = kr_mod(kr_div((0) + (kt + 1) * BK + te_3, div_4), div_5);
          const int s = kr_mod((0) + (kt + 1) * BK + te_3, div_4);
          ktab[(kt + 1) & 1][te_3][0] = H * W * c + W * r + s;
          ktab[(kt + 1) & 1][te_3][1] = r;
          ktab[(kt + 1) & 1][te_3][2] = s;
        }
      }
      for (int te_4 = (tid + 64) % NT; te_4 < x_nkmax; te_4 += NT) {
        const int krow_1 = kr_div((0) + (kt + 1) * BK, div_4) + te_4;
        {
          const int c = kr_div(krow_1, div_5);
          const int r = kr_mod(krow_1, div_5);
          x_rtab[(kt + 1) & 1][te_4][0] = H * W * c + W * r;
          x_rtab[(kt + 1) & 1][te_4][1] = r;
          x_rtab[(kt + 1) & 1][te_4][2] = 0;
          x_rtab[(kt + 1) & 1][te_4][3] = krow_1 < (C) * (R);
        }
      }
      __syncthreads();
      __pipeline_commit();
    }
    // krewrite tensor_core: tile 0's fragments; each tile's products then run under the next tile's wait, barrier, loads and fragments
    unsigned a_frag[BK / 8][4], a_next[BK / 8][4];
    __pipeline_wait_prior(STAGES - 2);
    kr_fence_async();
    __syncthreads();
    if (ntiles > 0) {
      if (x_patch) {
        const float *xs = &x_tile[0][0][0];
        #pragma unroll
        for (int i = 0; i < BK / 8; i++) {
          a_frag[i][0] = kr_tf32(xs[x_mp[0] + x_ftab[0][t][i * 2]]);
          a_frag[i][1] = kr_tf32(xs[x_mp[1] + x_ftab[0][t][i * 2]]);
          a_frag[i][2] = kr_tf32(xs[x_mp[0] + x_ftab[0][t][i * 2 + 1]]);
          a_frag[i][3] = kr_tf32(xs[x_mp[1] + x_ftab[0][t][i * 2 + 1]]);
        }
      } else {
        #pragma unroll
        for (int i = 0; i < BK / 8; i++) {
          a_frag[i][0] = kr_tf32(x_tile[0][i * 8 + t][wm0 + g]);
          a_frag[i][1] = kr_tf32(x_tile[0][i * 8 + t][wm0 + g + 8]);
          a_frag[i][2] = kr_tf32(x_tile[0][i * 8 + t + 4][wm0 + g]);
          a_frag[i][3] = kr_tf32(x_tile[0][i * 8 + t + 4][wm0 + g + 8]);
        }
      }
    }
    for (int kt = 0; kt < ntiles; kt++) {
      kr_wgmma_hold_n96(c_frag);
      kr_wgmma_fence();
      #pragma unroll
      for (int i = 0; i < BK / 8; i++)
        kr_wgmma_tf32_n96(c_frag, a_frag[i], kr_wgmma_desc(&w_tile[kt % STAGES][i * 8]));
      kr_wgmma_commit();
      if (kt + 1 < ntiles) {
        __pipeline_wait_prior(STAGES - 3);
        kr_fence_async();
        __syncthreads();
        {
          // krewrite double_buffer: start the loads of tile kt + STAGES - 1
          const int e = kt + STAGES - 1;
          if (e < ntiles) {
            if (x_patch) {
              // krewrite implicit_gemm: the k tile's patch rows, and where its fragments' k parts sit in them
              for (int te_5 = (tid + 32) % NT; te_5 < BK; te_5 += NT) {
                const int pk_1 = ((0) + (kt + STAGES - 1) * BK) + te_5, pkr_1 = kr_div(pk_1, div_4);
                x_ftab[(kt + STAGES - 1) % STAGES][te_5 % 4][te_5 / 4] = pk_1 < (C) * (R) * (S) ? (pkr_1 - kr_div(((0) + (kt + STAGES - 1) * BK), div_4)) * x_nr * x_lp + x_cs * (pk_1 - pkr_1 * (S)) : 0;
              }
              if (x_pok) {
                for (int ks_1 = 0; ks_1 < x_nkmax; ks_1++) {
                  const int4 rv_1 = *reinterpret_cast<const int4 *>(&x_rtab[(kt + STAGES - 1) & 1][ks_1][0]);
                  const bool in_3 = rv_1.w != 0 && x_pcond + rv_1.y >= 0 && x_pcond_1 - rv_1.y >= 0;
                  __pipeline_memcpy_async(&x_tile[(kt + STAGES - 1) % STAGES][0][0] + ks_1 * x_nr * x_lp + x_pdst, &x[in_3 ? x_psrc + rv_1.x : 0], 16, in_3 ? 0 : 16);
                }
              }
            } else {
              #pragma unroll
              for (int it = 0; it < (BM * BK) / NT; it++) {
                const int mm = tid % BM, kk = tid / BM + it * 2;
                const int4 tv_1 = *reinterpret_cast<const int4 *>(&ktab[(kt + STAGES - 1) & 1][kk][0]);
                const bool in_4 = x_in && ((0) + (kt + STAGES - 1) * BK) + kk < (C) * (R) * (S) && (unsigned)(x_cond + tv_1.y) <= (unsigned)x_span && (unsigned)(x_cond_2 + tv_1.z) <= (unsigned)x_span_1;
                __pipeline_memcpy_async(&x_tile[(kt + STAGES - 1) % STAGES][kk][mm], &x[in_4 ? x_base + tv_1.x : 0], sizeof(float), in_4 ? 0 : sizeof(float));
              }
            }
            #pragma unroll
            for (int it = 0; it < (BN * BK) / NT; it++) {
              const int mm = tid / BK + it * 8, kk = tid % BK;
              const int k = n0 + mm;
              const bool in_5 = k < K && k < K && ((0) + (kt + STAGES - 1) * BK) + kk < (C) * (R) * (S);
              __pipeline_memcpy_async(&w_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &w[in_5 ? C * R * S * k + (((0) + (kt + STAGES - 1) * BK) + kk) : 0], sizeof(float), in_5 ? 0 : sizeof(float));
            }
          }
          // krewrite implicit_gemm: the k parts of the indices for the k tile at ((0) + (kt + STAGES) * BK), for the gather
          if (!x_patch) {
            for (int te_6 = tid; te_6 < BK; te_6 += NT) {
              const int c = kr_div(((0) + (kt + STAGES) * BK) + te_6, div_3);
              const int r = kr_mod(kr_div(((0) + (kt + STAGES) * BK) + te_6, div_4), div_5);
              const int s = kr_mod(((0) + (kt + STAGES) * BK) + te_6, div_4);
              ktab[(kt + STAGES) & 1][te_6][0] = H * W * c + W * r + s;
              ktab[(kt + STAGES) & 1][te_6][1] = r;
              ktab[(kt + STAGES) & 1][te_6][2] = s;
            }
          }
          for (int te_7 = (tid + 64) % NT; te_7 < x_nkmax; te_7 += NT) {
            const int krow_2 = kr_div(((0) + (kt + STAGES) * BK), div_4) + te_7;
            {
              const int c = kr_div(krow_2, div_5);
              const int r = kr_mod(krow_2, div_5);
              x_rtab[(kt + STAGES) & 1][te_7][0] = H * W * c + W * r;
              x_rtab[(kt + STAGES) & 1][te_7][1] = r;
              x_rtab[(kt + STAGES) & 1][te_7][2] = 0;
              x_rtab[(kt + STAGES) & 1][te_7][3] = krow_2 < (C) * (R);
            }
          }
          __pipeline_commit();
        }
        if (x_patch) {
          const float *xs_1 = &x_tile[(kt + 1) % STAGES][0][0];
          #pragma unroll
          for (int i = 0; i < BK / 8; i++) {
            a_next[i][0] = kr_tf32(xs_1[x_mp[0] + x_ftab[(kt + 1) % STAGES][t][i * 2]]);
            a_next[i][1] = kr_tf32(xs_1[x_mp[1] + x_ftab[(kt + 1) % STAGES][t][i * 2]]);
            a_next[i][2] = kr_tf32(xs_1[x_mp[0] + x_ftab[(kt + 1) % STAGES][t][i * 2 + 1]]);
            a_next[i][3] = kr_tf32(xs_1[x_mp[1] + x_ftab[(kt + 1) % STAGES][t][i * 2 + 1]]);
          }
        } else {
          #pragma unroll
          for (int i = 0; i < BK / 8; i++) {
            a_next[i][0] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t][wm0 + g]);
            a_next[i][1] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t][wm0 + g + 8]);
            a_next[i][2] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t + 4][wm0 + g]);
            a_next[i][3] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t + 4][wm0 + g + 8]);
          }
        }
      }
      kr_wgmma_wait();
      kr_wgmma_hold_n96(c_frag);
      #pragma unroll
      for (int i = 0; i < BK / 8; i++) {
        kr_wgmma_keep(a_frag[i]);
        if (kt + 1 < ntiles)
          for (int v = 0; v < 4; v++) a_frag[i][v] = a_next[i][v];
      }
    }
    // krewrite tensor_core: the accumulators through a [BN][BM + 4] tile in shared memory, so that a warp stores 32 consecutive outputs of one column (the output runs along m)
    __pipeline_wait_prior(0);
    __syncthreads();
    float (*out_tile)[BM + 4] = reinterpret_cast<float (*)[BM + 4]>(smem);
    #pragma unroll
    for (int i = 0; i < 12; i++) {
      #pragma unroll
      for (int v = 0; v < 4; v++)
        out_tile[i * 8 + t * 2 + v % 2][wm0 + g + (v / 2) * 8] = c_frag[i * 4 + v];
    }
    // krewrite tile: 'b' by k alone, the block's BN of it in shared memory for the epilogue
    __shared__ float b_n[BN];
    for (int ni = tid; ni < BN; ni += NT) {
      const int k = n0 + ni;
      b_n[ni] = (k < K) ? b[k] : (float)0;
    }
    __syncthreads();
    const int mo = tid % BM;
    const int out_n = kr_div(m0 + mo, div);
    const int out_p = kr_mod(kr_div(m0 + mo, div_1), div_2);
    const int out_q = kr_mod(m0 + mo, div_1);
    #pragma unroll 4
    for (int eo = 0; eo < BM * BN / NT; eo++) {
      const int no = tid / BM + eo * 2;
      const int q = out_q;
      const int p = out_p;
      const int k = n0 + no;
      const int n = out_n;
      const int idx = n * ((Q * P * K)) + p * (Q) + k * ((Q * P)) + q;
      if (idx < N * K * P * Q && q < Q && p < P && k < K) {
        float sum = b_n[k - n0];
        sum += out_tile[no][mo];
        y[idx] = sum;
      }
    }
    __syncthreads();
  }
}
