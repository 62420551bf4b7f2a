#include <cuda_pipeline.h>
#include <cooperative_groups.h>
// The softmax of cluster.cu with row_cache after split_rows over a cluster: each block keeps its
// part of the row on chip (2 steps a thread in registers, the rest in up to 4 KiB of shared memory)
// from the first sweep to the normalising one.
#ifndef KR_CUDA_EMULATOR
#ifndef KR_CLUSTER_PUSH
#define KR_CLUSTER_PUSH
// krewrite split_rows: a cluster's blocks push partial states into each other's shared memory (st.async), each
// block's mbarrier counting the bytes that arrive, so no cluster barrier stands between the sweeps (sm_90)
__device__ __forceinline__ unsigned kr_cluster_address(const void *p, unsigned rank) {
  unsigned a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"((unsigned)__cvta_generic_to_shared(p)), "r"(rank));
  return a;
}
// this block's mbarrier `bar` expects `bytes` in pushes (by thread 0, before kr_cluster_open)
__device__ __forceinline__ void kr_cluster_expect(unsigned long long *bar, unsigned bytes) {
  unsigned b = (unsigned)__cvta_generic_to_shared(bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(b) : "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" : : "r"(b), "r"(bytes) : "memory");
}
// every thread: this block's mbarriers are ready; kr_cluster_opened waits until every block's are
__device__ __forceinline__ void kr_cluster_open() {
  asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" : : : "memory");
}
__device__ __forceinline__ void kr_cluster_opened() { asm volatile("barrier.cluster.wait.aligned;" : : : "memory"); }
// v into `slot` of block `rank`'s shared memory, counted by that block's mbarrier `bar`
template <class T> __device__ __forceinline__ void kr_cluster_push(T *slot, unsigned long long *bar, unsigned rank, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "kr_cluster_push moves 4 or 8 bytes");
  const unsigned s = kr_cluster_address(slot, rank), b = kr_cluster_address(bar, rank);
  if constexpr (sizeof(T) == 4) {
    unsigned u;
    memcpy(&u, &v, 4);
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" : : "r"(s), "r"(u), "r"(b) : "memory");
  } else {
    unsigned long long u;
    memcpy(&u, &v, 8);
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" : : "r"(s), "l"(u), "r"(b) : "memory");
  }
}
// until every byte this block's mbarrier `bar` expects has arrived
__device__ __forceinline__ void kr_cluster_wait(unsigned long long *bar) {
  const unsigned b = (unsigned)__cvta_generic_to_shared(bar);
  unsigned done = 0;
  while (!done)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(b) : "memory");
}
#endif
#endif

__global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(256) softmax(const float *x, float *y, int rows, int cols) {
  // krewrite row_cache: each row over 4 blocks of 256 threads; each row loop strided over the row's threads
  // row_cache: x's row on chip, each thread's first 2 steps of 4 in registers, the next 1024 elements in shared memory
  float kr_row[2][4];
  extern __shared__ __align__(16) unsigned char kr_dynamic_shared[];
  float *kr_row_shared = reinterpret_cast<float *>(kr_dynamic_shared);
  __shared__ float m_part[8];
  __shared__ float sum_part[8];
  // split_rows: each row over a cluster of 4 blocks (__cluster_dims__), which meet in distributed shared memory
  cooperative_groups::cluster_group kr_cluster = cooperative_groups::this_cluster();
  const int kr_part = (int)kr_cluster.block_rank();
  int row = blockIdx.x / 4;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;   // the whole cluster: its blocks share the row
  // split_rows: the blocks push their partial states into each other's shared memory; each of this block's mbarriers counts
  // the bytes of one reduction's 4 parts
  __shared__ unsigned long long kr_arrivals[1];
  __shared__ float kr_m_slots[4];
  __shared__ float kr_sum_slots[4];
  if (threadIdx.x == 0) {
    kr_cluster_expect(&kr_arrivals[0], 4 * (sizeof(float) + sizeof(float)));
  }
  kr_cluster_open();   // this block's mbarriers are ready (waited for before the first push)
  float m = -INFINITY;
  float sum = 0.0f;
  // online_softmax: the maximum and the sum of expf(v - max) in one sweep, the sum rescaled when the maximum grows
  const long long kr_len = (long long)(cols) - (long long)(0);
  const long long kr_chunk = ((kr_len + 3) / 4 + 31) / 32 * 32;   // whole warps' worth
  const long long kr_from = (long long)(0) + kr_part * kr_chunk;
  const long long kr_to = kr_from + kr_chunk < (long long)(cols) ? kr_from + kr_chunk : (long long)(cols);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(kr_from), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = kr_from;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(kr_to) - kr_vbeg - kr_head >= 1024) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(kr_to) - kr_vbeg) / 4 * 4;
    }
  }
  const bool kr_row_fits = kr_vend - kr_vbeg <= 3072;   // row_cache: the row's steps fit in registers and shared memory
  for (int j = (int)((kr_from) + kr_lane); j < kr_vbeg; j += 256) {
    float kr_v = x[row * cols + j];
    float kr_e = expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      sum = sum * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      sum += kr_e;
    }
  }
  // row_cache: each thread's steps of x kept on chip for the later sweeps
  if (kr_row_fits) {   // row_cache: the steps past the registers' copied straight to shared memory (cp.async), all in flight before the first is used
    for (int kr_j0_1 = (int)(kr_vbeg + kr_lane * 4 + 2048); kr_j0_1 < kr_vend; kr_j0_1 += 1024) {
      const int j = kr_j0_1;
      __pipeline_memcpy_async(&reinterpret_cast<uint4 *>(&kr_row_shared[kr_j0_1 - kr_vbeg - 2048])[0], &reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0], 16);
    }
    __pipeline_commit();
  }
  #pragma unroll
  for (int kr_m = 0; kr_m < 2; kr_m++) {
    const int kr_j0 = (int)(kr_vbeg + kr_lane * 4 + kr_m * 1024);
    if (kr_j0 < kr_vend) {
      float kr_x[4];
      uint4 kr_word;
      {
        const int j = kr_j0;
        kr_word = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        memcpy(&kr_x[0], &kr_word, 16);
        memcpy(&kr_row[kr_m][0], &kr_x[0], 16);   // row_cache: kept in registers
      }
      #pragma unroll
      for (int kr_k = 0; kr_k < 4; kr_k++) {
        float kr_v = kr_x[kr_k];
        float kr_e = expf(-fabsf(kr_v - m));
        if (kr_v > m) {
          sum = sum * kr_e + 1.0f;
          m = kr_v;
        } else if (kr_v > -INFINITY) {
          sum += kr_e;
        }
      }
    }
  }
  if (kr_row_fits) {
    __pipeline_wait_prior(0);   // row_cache: this thread's copies arrived
    #pragma unroll 4
    for (int kr_j0_2 = (int)(kr_vbeg + kr_lane * 4 + 2048); kr_j0_2 < kr_vend; kr_j0_2 += 1024) {
      float kr_x[4];
      uint4 kr_word_1;
      {
        kr_word_1 = reinterpret_cast<const uint4 *>(&kr_row_shared[kr_j0_2 - kr_vbeg - 2048])[0];   // row_cache: from shared memory
        memcpy(&kr_x[0], &kr_word_1, 16);
      }
      #pragma unroll
      for (int kr_k = 0; kr_k < 4; kr_k++) {
        float kr_v = kr_x[kr_k];
        float kr_e = expf(-fabsf(kr_v - m));
        if (kr_v > m) {
          sum = sum * kr_e + 1.0f;
          m = kr_v;
        } else if (kr_v > -INFINITY) {
          sum += kr_e;
        }
      }
    }
  } else {
    for (int kr_j0_3 = (int)(kr_vbeg + kr_lane * 4 + 2048); kr_j0_3 < kr_vend; kr_j0_3 += 4096) {   // 4 steps at a time, their loads first
      uint4 kr_pre[4][1];
      #pragma unroll
      for (int kr_u = 0; kr_u < 4; kr_u++) {
        if (kr_j0_3 + kr_u * 1024 < kr_vend) {
          const int j = kr_j0_3 + kr_u * 1024;
          kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u = 0; kr_u < 4; kr_u++) {
        const int kr_ju = kr_j0_3 + kr_u * 1024;
        if (kr_ju < kr_vend) {
          float kr_x[4];
          uint4 kr_word_2;
          {
            kr_word_2 = kr_pre[kr_u][0];
            memcpy(&kr_x[0], &kr_word_2, 16);
          }
          #pragma unroll
          for (int kr_k = 0; kr_k < 4; kr_k++) {
            float kr_v = kr_x[kr_k];
            float kr_e = expf(-fabsf(kr_v - m));
            if (kr_v > m) {
              sum = sum * kr_e + 1.0f;
              m = kr_v;
            } else if (kr_v > -INFINITY) {
              sum += kr_e;
            }
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < kr_to; j += 256) {
    float kr_v = x[row * cols + j];
    float kr_e = expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      sum = sum * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      sum += kr_e;
    }
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    float sum_other = __shfl_down_sync(0xffffffffu, sum, kr_offset);
    float kr_max = fmaxf(m, m_other);
    sum = (m == -INFINITY ? 0 : sum * expf(m - kr_max)) + (m_other == -INFINITY ? 0 : sum_other * expf(m_other - kr_max));
    m = kr_max;
  }
  if (kr_lane % 32 == 0) {
    m_part[kr_lane / 32] = m;
    sum_part[kr_lane / 32] = sum;
  }
  __syncthreads();
  m = m_part[0];
  sum = sum_part[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float m_other_1 = m_part[kr_warp];
    float sum_other_1 = sum_part[kr_warp];
    float kr_max_1 = fmaxf(m, m_other_1);
    sum = (m == -INFINITY ? 0 : sum * expf(m - kr_max_1)) + (m_other_1 == -INFINITY ? 0 : sum_other_1 * expf(m_other_1 - kr_max_1));
    m = kr_max_1;
  }
  // split_rows: the cluster's 4 partial states of this reduction, pushed into every block and combined in rank order
  kr_cluster_opened();   // every block's mbarriers are ready for the pushes
  if (threadIdx.x == 0) {
    for (unsigned int kr_to_1 = 0; kr_to_1 < 4u; kr_to_1++) {
      kr_cluster_push(&kr_m_slots[kr_part], &kr_arrivals[0], kr_to_1, m);
      kr_cluster_push(&kr_sum_slots[kr_part], &kr_arrivals[0], kr_to_1, sum);
    }
  }
  kr_cluster_wait(&kr_arrivals[0]);
  m = kr_m_slots[0];
  sum = kr_sum_slots[0];
  for (int kr_rank = 1; kr_rank < 4; kr_rank++) {
    float m_part_1 = kr_m_slots[kr_rank];
    float sum_part_1 = kr_sum_slots[kr_rank];
    float kr_max_2 = fmaxf(m, m_part_1);
    sum = (m == -INFINITY ? 0 : sum * expf(m - kr_max_2)) + (m_part_1 == -INFINITY ? 0 : sum_part_1 * expf(m_part_1 - kr_max_2));
    m = kr_max_2;
  }
  float mx = m;
  float total = sum;
  const long long kr_len_1 = (long long)(cols) - (long long)(0);
  const long long kr_chunk_1 = ((kr_len_1 + 3) / 4 + 31) / 32 * 32;   // whole warps' worth
  const long long kr_from_1 = (long long)(0) + kr_part * kr_chunk_1;
  const long long kr_to_2 = kr_from_1 + kr_chunk_1 < (long long)(cols) ? kr_from_1 + kr_chunk_1 : (long long)(cols);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(kr_from_1), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = kr_from_1;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(y[row * cols + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(x[row * cols + j]);
    if (kr_address_1 % 4 == 0 && kr_address_2 % 4 == 0 && (long long)((16 - (kr_address_2 & 15)) & 15) / 4 == kr_head_1 && (long long)(kr_to_2) - kr_vbeg_1 - kr_head_1 >= 1024) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(kr_to_2) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((kr_from_1) + kr_lane); j < kr_vbeg_1; j += 256) {
    y[row * cols + j] = expf(x[row * cols + j] - mx) / total;
  }
  if (kr_row_fits && kr_vbeg_1 == kr_vbeg && kr_vend_1 == kr_vend) {   // row_cache: the steps the first sweep kept
    #pragma unroll
    for (int kr_m_1 = 0; kr_m_1 < 2; kr_m_1++) {
      const int kr_j0_4 = (int)(kr_vbeg_1 + kr_lane * 4 + kr_m_1 * 1024);
      if (kr_j0_4 < kr_vend_1) {
        float kr_y[4];
        float kr_x_1[4];
        uint4 kr_word_3;
        {
          memcpy(&kr_x_1[0], &kr_row[kr_m_1][0], 16);   // row_cache: from registers
        }
        #pragma unroll
        for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
          kr_y[kr_k_1] = expf(kr_x_1[kr_k_1] - mx) / total;
        }
        {
          const int j = kr_j0_4;
          memcpy(&kr_word_3, &kr_y[0], 16);
          reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_3;
        }
      }
    }
    #pragma unroll 4
    for (int kr_j0_5 = (int)(kr_vbeg_1 + kr_lane * 4 + 2048); kr_j0_5 < kr_vend_1; kr_j0_5 += 1024) {
      float kr_y[4];
      float kr_x_1[4];
      uint4 kr_word_4;
      {
        kr_word_4 = reinterpret_cast<const uint4 *>(&kr_row_shared[kr_j0_5 - kr_vbeg_1 - 2048])[0];   // row_cache: from shared memory
        memcpy(&kr_x_1[0], &kr_word_4, 16);
      }
      #pragma unroll
      for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
        kr_y[kr_k_1] = expf(kr_x_1[kr_k_1] - mx) / total;
      }
      {
        const int j = kr_j0_5;
        memcpy(&kr_word_4, &kr_y[0], 16);
        reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_4;
      }
    }
  } else {
    for (int kr_j0_6 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_6 < kr_vend_1; kr_j0_6 += 4096) {   // 4 steps at a time, their loads first
      uint4 kr_pre_1[4][1];
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        if (kr_j0_6 + kr_u_1 * 1024 < kr_vend_1) {
          const int j = kr_j0_6 + kr_u_1 * 1024;
          kr_pre_1[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        const int kr_ju_1 = kr_j0_6 + kr_u_1 * 1024;
        if (kr_ju_1 < kr_vend_1) {
          float kr_y[4];
          float kr_x_1[4];
          uint4 kr_word_5;
          {
            kr_word_5 = kr_pre_1[kr_u_1][0];
            memcpy(&kr_x_1[0], &kr_word_5, 16);
          }
          #pragma unroll
          for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
            kr_y[kr_k_1] = expf(kr_x_1[kr_k_1] - mx) / total;
          }
          {
            const int j = kr_ju_1;
            memcpy(&kr_word_5, &kr_y[0], 16);
            reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_5;
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < kr_to_2; j += 256) {
    y[row * cols + j] = expf(x[row * cols + j] - mx) / total;
  }
}
