#include <cuda_pipeline.h>
// C = A^T * B^T in fp32: A is K x M and B is N x K, both read along their rows; the k loop starts at a
// parameter. split_k before double_buffer: schedule passes compose in any order.
// krewrite tensor_core: d (64 x 64, this warp's 16 rows) += a (64 x 8, registers) * the 8 x 64 tile the descriptor names (k-major), for the warpgroup (PTX wgmma.mma_async, tf32, issued: wait for it with kr_wgmma_wait)
static __device__ __forceinline__ void kr_wgmma_tf32_n64(float (&d)[32], const unsigned (&a)[4], unsigned long long desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, 1, 1, 1;\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

// krewrite tensor_core: keeps the compiler from moving d's registers across a product in flight
static __device__ __forceinline__ void kr_wgmma_hold_n64(float (&d)[32]) {
  #pragma unroll
  for (int i = 0; i < 32; i++) asm volatile("" : "+f"(d[i]) :: "memory");
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

__global__ void __launch_bounds__(128, 4) tt(const float *A, const float *B, float *C, int M, int N, int K, int k_first) {
  // krewrite tile: 64 x 64 outputs of (i, j) per block, k tiles of 32; staged in shared memory: A, B
  // krewrite tensor_core: tf32 on the tensor cores (wgmma 16 x 8 x 8), a 16 x 64 tile per warp
  // krewrite double_buffer: 2 shared-memory stages filled by cp.async
  constexpr int BM = 64, BN = 64, BK = 32;
  constexpr int TM = 1, TN = 32, STAGES = 2;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 16, WN = 64, MM = 16, MN = 8, MK = 8;
  constexpr int FM = WM / MM, FN = WN / MN;
  // krewrite tile: the tiles in 34816 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(1024) unsigned char smem[];
  float (*A_tile)[BK][BM + 8] = reinterpret_cast<float (*)[BK][BM + 8]>(smem + 0);
  float (*B_tile)[BN * BK] = reinterpret_cast<float (*)[BN * BK]>(smem + 18432);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite tile: 'A' loads 16 bytes at a time when its rows allow it
  const bool A_vec = (M) % 4 == 0 && reinterpret_cast<unsigned long long>(A) % 16 == 0;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (K) % 4 == 0 && (k_first) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  // krewrite tensor_core: warpgroup w computes 64 rows of the block's product (along m), warp tid / 32 the 16 at wm0, each thread 32 of them (wgmma m64n64k8, tf32)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  float c_frag[32];
  #pragma unroll
  for (int v = 0; v < 32; v++) c_frag[v] = 0.0f;
  const int ntiles = ((K) - (k_first) + BK - 1) / BK;
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (k_first) + kt * BK;
      bool inside = true;
      inside = inside && A_vec;
      {
        const int i = m0 + 0;
        const int k = k0 + 0;
        inside = inside && (i < M && k < K);
      }
      {
        const int i = m0 + BM - 1;
        const int k = k0 + BK - 1;
        inside = inside && (i < M && k < K);
      }
      inside = inside && B_vec;
      {
        const int j = n0 + 0;
        const int k = k0 + 0;
        inside = inside && (j < N && k < K);
      }
      {
        const int j = n0 + BN - 1;
        const int k = k0 + BK - 1;
        inside = inside && (j < N && k < K);
      }
      if (inside) {
        #pragma unroll
        for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
          const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
          const int i = m0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[k * M + i], 16);
        }
        #pragma unroll
        for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
          const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
          const int j = n0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&B_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &B[j * K + k], 16);
        }
      } else {
        #pragma unroll
        for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
          const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
          bool A_full = A_vec;
          {
            const int i = m0 + mm;
            const int k = k0 + kk;
            A_full = A_full && (i < M && k < K);
          }
          {
            const int i = m0 + mm + 3;
            const int k = k0 + kk;
            A_full = A_full && (i < M && k < K);
          }
          if (A_full) {
            const int i = m0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[k * M + i], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int i = m0 + mm + v;
              const int k = k0 + kk;
              A_tile[kt % STAGES][kk][mm + v] = (i < M && k < K) ? A[k * M + i] : (float)0;
            }
          }
        }
        #pragma unroll
        for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
          const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
          bool B_full = B_vec;
          {
            const int j = n0 + mm;
            const int k = k0 + kk;
            B_full = B_full && (j < N && k < K);
          }
          {
            const int j = n0 + mm;
            const int k = k0 + kk + 3;
            B_full = B_full && (j < N && k < K);
          }
          if (B_full) {
            const int j = n0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&B_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &B[j * K + k], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int j = n0 + mm;
              const int k = k0 + kk + v;
              B_tile[kt % STAGES][(mm) * BK + ((((kk + v) / 4) ^ ((mm) % 8)) * 4) + (kk + v) % 4] = (j < N && k < K) ? B[j * K + k] : (float)0;
            }
          }
        }
      }
    }
    __pipeline_commit();
  }
  for (int kt = 0; kt < ntiles; kt++) {
    {
      // krewrite double_buffer: start the loads of tile kt + STAGES - 1
      const int e = kt + STAGES - 1;
      if (e < ntiles) {
        bool inside_1 = true;
        inside_1 = inside_1 && A_vec;
        {
          const int i = m0 + 0;
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (i < M && k < K);
        }
        {
          const int i = m0 + BM - 1;
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (i < M && k < K);
        }
        inside_1 = inside_1 && B_vec;
        {
          const int j = n0 + 0;
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (j < N && k < K);
        }
        {
          const int j = n0 + BN - 1;
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (j < N && k < K);
        }
        if (inside_1) {
          #pragma unroll
          for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
            const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
            const int i = m0 + mm;
            const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[k * M + i], 16);
          }
          #pragma unroll
          for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
            const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
            const int j = n0 + mm;
            const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &B[j * K + k], 16);
          }
        } else {
          #pragma unroll
          for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
            const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
            bool A_full = A_vec;
            {
              const int i = m0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              A_full = A_full && (i < M && k < K);
            }
            {
              const int i = m0 + mm + 3;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              A_full = A_full && (i < M && k < K);
            }
            if (A_full) {
              const int i = m0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[k * M + i], 16);
            } else {
              for (int v = 0; v < 4; v++) {
                const int i = m0 + mm + v;
                const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
                A_tile[(kt + STAGES - 1) % STAGES][kk][mm + v] = (i < M && k < K) ? A[k * M + i] : (float)0;
              }
            }
          }
          #pragma unroll
          for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
            const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
            bool B_full = B_vec;
            {
              const int j = n0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              B_full = B_full && (j < N && k < K);
            }
            {
              const int j = n0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk + 3;
              B_full = B_full && (j < N && k < K);
            }
            if (B_full) {
              const int j = n0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &B[j * K + k], 16);
            } else {
              for (int v = 0; v < 4; v++) {
                const int j = n0 + mm;
                const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk + v;
                B_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk + v) / 4) ^ ((mm) % 8)) * 4) + (kk + v) % 4] = (j < N && k < K) ? B[j * K + k] : (float)0;
              }
            }
          }
        }
      }
      __pipeline_commit();
    }
    __pipeline_wait_prior(STAGES - 1);
    kr_fence_async();
    __syncthreads();
    unsigned a_frag[BK / 8][4];
    #pragma unroll
    for (int i_1 = 0; i_1 < BK / 8; i_1++) {
      a_frag[i_1][0] = kr_tf32(A_tile[kt % STAGES][i_1 * 8 + t][wm0 + g]);
      a_frag[i_1][1] = kr_tf32(A_tile[kt % STAGES][i_1 * 8 + t][wm0 + g + 8]);
      a_frag[i_1][2] = kr_tf32(A_tile[kt % STAGES][i_1 * 8 + t + 4][wm0 + g]);
      a_frag[i_1][3] = kr_tf32(A_tile[kt % STAGES][i_1 * 8 + t + 4][wm0 + g + 8]);
    }
    kr_wgmma_hold_n64(c_frag);
    kr_wgmma_fence();
    #pragma unroll
    for (int i_1 = 0; i_1 < BK / 8; i_1++)
      kr_wgmma_tf32_n64(c_frag, a_frag[i_1], kr_wgmma_desc(&B_tile[kt % STAGES][i_1 * 8]));
    kr_wgmma_commit();
    kr_wgmma_wait();
    kr_wgmma_hold_n64(c_frag);
    __syncthreads();
  }
  // krewrite tensor_core: each thread's outputs from its accumulators (rows g and g + 8 of its warp's, columns 8i + 2t and 8i + 2t + 1), under the kernel's own guard
  #pragma unroll
  for (int i_1 = 0; i_1 < 8; i_1++) {
    #pragma unroll
    for (int v = 0; v < 4; v++) {
      const int j = n0 + i_1 * 8 + t * 2 + v % 2;
      const int i = m0 + wm0 + g + (v / 2) * 8;
      if (i < M && j < N) {
        float acc = 0.0f;
        acc += c_frag[i_1 * 4 + v];
        C[i * N + j] = acc;
      }
    }
  }
}
