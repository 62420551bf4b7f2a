// bench/proto/conv/conv_patch.cu: an experiment by hand: row patches with each thread's chunks fixed across tiles and the fragments' k offsets in a table (what implicit_gemm { patch } now emits) (run.sh).
#include <cuda_pipeline.h>
// examples/conv2d/kernel.cu: direct 2-D convolution (cross-correlation, as in PyTorch) in fp32.
//   x: input  (N, C, H, W)      w: weights (K, C, R, S)      b: bias (K)
//   y: output (N, K, P, Q) with P = (H + 2*pad - R) / stride + 1, Q = (W + 2*pad - S) / stride + 1
// NCHW, contiguous. Out-of-range input positions are zero padding. Written plainly: one thread
// per output element (a 1-D grid over N*K*P*Q, 256 threads a block), each thread looping over
// the C x R x S window with the index arithmetic recomputed in the innermost loop.
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
  f.shift = 0;
  while ((1ull << f.shift) < (unsigned long long)d) f.shift++;
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

// EXPERIMENT: the x operand staged as whole input rows (the tile's (n, p) rows x the k tile's (c, r)
// pairs), loaded 16 bytes at a time, and the fragments read from the rows at q * stride + s.
constexpr int OFF = 4;   // the column of iw = 0 (>= pad)
__global__ void __launch_bounds__(256, 2) conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b, float *__restrict__ y,
                       int LP, int SLOTS) {
  constexpr int BM = 128, BN = 96, BK = 32;
  constexpr int STAGES = 3;
  constexpr int NT = 256;
  constexpr int WM = 16, WN = 96;
  const kr_fastdiv div = kr_fastdiv_of((P) * (Q));
  const kr_fastdiv div_1 = kr_fastdiv_of(Q);
  const kr_fastdiv div_2 = kr_fastdiv_of(P);
  const kr_fastdiv div_4 = kr_fastdiv_of(S);
  const kr_fastdiv div_5 = kr_fastdiv_of(R);
  const int M = N * P * Q, CRS = C * R * S;
  extern __shared__ __align__(1024) unsigned char smem[];
  const int stage_floats = SLOTS * LP;
  float *patch = reinterpret_cast<float *>(smem);
  const int w_off = ((STAGES * stage_floats * 4) + 1023) / 1024 * 1024;
  float (*w_tile)[BN * BK] = reinterpret_cast<float (*)[BN * BK]>(smem + w_off);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int r_first = kr_div(m0, div_1);
  const int NR = kr_div(min(m0 + BM, M) - 1, div_1) - r_first + 1;
  const bool vec = (W % 4) == 0;
  const int W4 = vec ? W / 4 : W;
  const kr_fastdiv divw = kr_fastdiv_of(W4);
  // zero the columns outside [OFF, OFF + W) of every slot of every stage, once
  for (int e = tid; e < STAGES * SLOTS * LP; e += NT) {
    const int col = e % LP;
    if (col < OFF || col >= OFF + W) patch[e] = 0.0f;
  }
  const int wm0 = (tid / 32) * WM;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  int mp[2];
  #pragma unroll
  for (int h = 0; h < 2; h++) {
    const int m = min(m0 + wm0 + g + h * 8, M - 1);
    const int row = kr_div(m, div_1), q = m - row * Q;
    mp[h] = (row - r_first) * LP + q * stride + OFF - pad;
  }
  float c_frag[48];
  #pragma unroll
  for (int v = 0; v < 48; v++) c_frag[v] = 0.0f;
  const int ntiles = (CRS + BK - 1) / BK;
  // fast path: each thread's chunks (at most 4) fixed across k tiles
  const int NCRmax = (BK - 1 + S - 1) / S + 1;
  const bool fast = vec && NCRmax * NR * W4 <= 4 * NT;
  int c_row[4], c_ih[4], c_dst[4], c_cs[4];
  #pragma unroll
  for (int j = 0; j < 4; j++) {
    const int ch = tid + j * NT;
    const int seg = kr_div(ch, divw), col = ch - seg * W4;
    const int cs = seg / NR, rs = seg - cs * NR;
    const int row = r_first + rs;
    const int n = kr_div(row, div_2), p = row - n * P;
    c_cs[j] = (fast && cs < NCRmax && row < N * P) ? cs : -1;
    c_row[j] = n * C * H * W + col * 4;
    c_ih[j] = p * stride - pad;
    c_dst[j] = seg * LP + OFF + col * 4;
  }
  int *ftab = reinterpret_cast<int *>(smem + w_off + STAGES * BN * BK * 4);   // [STAGES][4][8]
  auto load_tile = [&](int kt) {
    const int k0 = kt * BK;
    float *pt = patch + (kt % STAGES) * stage_floats;
    const int cr_first = kr_div(k0, div_4);
    if (tid < BK) {
      const int k = k0 + tid;
      const int cr = kr_div(k, div_4), s = k - cr * S;
      ftab[(kt % STAGES) * 32 + (tid % 4) * 8 + tid / 4] = k < CRS ? (cr - cr_first) * NR * LP + s : 0;
    }
    if (fast) {
      #pragma unroll
      for (int j = 0; j < 4; j++) {
        const int cr = cr_first + c_cs[j];
        const int c = kr_div(cr, div_5), r = cr - c * R;
        const int ih = c_ih[j] + r;
        const bool in = c_cs[j] >= 0 && c < C && (unsigned)ih < (unsigned)H;
        const bool any = c_cs[j] >= 0;
        if (any) __pipeline_memcpy_async(pt + c_dst[j], x + (in ? c_row[j] + (c * H + ih) * W : 0), 16, in ? 0 : 16);
      }
    } else {
    const int NCR = kr_div(min(k0 + BK, CRS) - 1, div_4) - cr_first + 1;
    const int total = NCR * NR * W4;
    for (int ch = tid; ch < total; ch += NT) {
      const int seg = kr_div(ch, divw), col = ch - seg * W4;
      const int cs = seg / NR, rs = seg - cs * NR;
      const int cr = cr_first + cs, row = r_first + rs;
      const int c = kr_div(cr, div_5), r = cr - c * R;
      const int n = kr_div(row, div_2), p = row - n * P;
      const int ih = p * stride - pad + r;
      const bool in = row < N * P && (unsigned)ih < (unsigned)H;
      const float *src = x + ((size_t)(n * C + c) * H + (in ? ih : 0)) * W;
      float *dst = pt + seg * LP + OFF;
      if (vec) __pipeline_memcpy_async(dst + col * 4, in ? src + col * 4 : x, 16, in ? 0 : 16);
      else __pipeline_memcpy_async(dst + col, in ? src + col : x, 4, in ? 0 : 4);
    }
    }
    #pragma unroll
    for (int it = 0; it < (BN * BK) / NT; it++) {
      const int mm = tid / BK + it * 8, kk = tid % BK;
      const int k = n0 + mm;
      const bool in_2 = k < K && k0 + kk < CRS;
      __pipeline_memcpy_async(&w_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &w[in_2 ? CRS * k + (k0 + kk) : 0], sizeof(float), in_2 ? 0 : sizeof(float));
    }
  };
  auto load_frags = [&](int kt, unsigned (&a)[BK / 8][4]) {
    const float *pt = patch + (kt % STAGES) * stage_floats;
    const int4 f0 = *reinterpret_cast<const int4 *>(&ftab[(kt % STAGES) * 32 + t * 8]);
    const int4 f1 = *reinterpret_cast<const int4 *>(&ftab[(kt % STAGES) * 32 + t * 8 + 4]);
    const int kp[8] = {f0.x, f0.y, f0.z, f0.w, f1.x, f1.y, f1.z, f1.w};
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      #pragma unroll
      for (int hk = 0; hk < 2; hk++) {
        // k = k0 + i * 8 + t + hk * 4 = k0 + t + 4 * (2 * i + hk)
        a[i][hk * 2 + 0] = kr_tf32(pt[mp[0] + kp[2 * i + hk]]);
        a[i][hk * 2 + 1] = kr_tf32(pt[mp[1] + kp[2 * i + hk]]);
      }
    }
  };
  __syncthreads();   // the zeroed columns before any cp.async of a neighbouring chunk (distinct bytes; for order)
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) load_tile(kt);
    __pipeline_commit();
  }
  unsigned a_frag[BK / 8][4], a_next[BK / 8][4];
  __pipeline_wait_prior(STAGES - 2);
  kr_fence_async();
  __syncthreads();
  if (ntiles > 0) load_frags(0, a_frag);
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
      if (kt + STAGES - 1 < ntiles) load_tile(kt + STAGES - 1);
      __pipeline_commit();
      load_frags(kt + 1, a_next);
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
  __pipeline_wait_prior(0);
  __syncthreads();
  float (*out_tile)[BM + 4] = reinterpret_cast<float (*)[BM + 4]>(smem);
  #pragma unroll
  for (int i = 0; i < 12; i++) {
    #pragma unroll
    for (int v = 0; v < 4; v++)
      out_tile[i * 8 + t * 2 + v % 2][wm0 + g + (v / 2) * 8] = c_frag[i * 4 + v];
  }
  __syncthreads();
  for (int eo = 0; eo < BM * BN / NT; eo++) {
    const int mo = tid % BM, no = tid / BM + eo * 2;
    const int q = kr_mod(m0 + mo, div_1);
    const int p = kr_mod(kr_div(m0 + mo, div_1), div_2);
    const int k = n0 + no;
    const int n = kr_div(m0 + mo, div);
    const int idx = n * ((Q * P * K)) + p * (Q) + k * ((Q * P)) + q;
    if (idx < N * K * P * Q && q < Q && p < P && k < K) {
      float sum = b[k];
      sum += out_tile[no][mo];
      y[idx] = sum;
    }
  }
}

void launch_conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, float *x,
                   float *w, float *b, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int NRmax = (127 + Q - 1) / Q + 1;
  int NCRmax = (31 + S - 1) / S + 1;
  int LP = (OFF + W + pad + 3) / 4 * 4;
  // the rows a fragment may read past: q * stride + s - pad + OFF < OFF + W + pad
  int slots = NRmax * NCRmax;
  int stage_bytes = slots * LP * 4;
  int w_off = (3 * stage_bytes + 1023) / 1024 * 1024;
  int shmem = w_off + 3 * 96 * 32 * 4 + 3 * 32 * 4;
  if (shmem < 96 * 132 * 4) shmem = 96 * 132 * 4;
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, shmem);
  dim3 grid((K + 95) / 96, (N * P * Q + 127) / 128);
  conv2d<<<grid, 256, shmem, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, y, LP, slots);
}
