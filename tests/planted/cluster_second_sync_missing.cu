// tests/planted/cluster_second_sync_missing.cu (class 5; specs/cluster_softmax): split_rows over a
// cluster of 4 blocks after block_reduce alone (a max, then a sum: two states combined through the
// cluster), with the second state's shared variable declared at the top of the kernel and the
// cluster.sync() before its combine turned into __syncthreads(): every block has passed the first
// cluster.sync(), so the other blocks' variables exist, but a block reads their sums through
// map_shared_rank before they are written (poison on the emulator, stale values on a GPU).
#include <cooperative_groups.h>
__global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(256) softmax(const float *x, float *y, int rows, int cols) {
  // krewrite split_rows: each row over 4 blocks of 256 threads; each row loop strided over the row's threads
  __shared__ float m_part[8];
  __shared__ float sum_part[8];
  __shared__ float kr_sum_block;   // planted: declared at the top, so every block has it early
  // split_rows: each row over a cluster of 4 blocks (__cluster_dims__), which meet in distributed shared memory
  cooperative_groups::cluster_group kr_cluster = cooperative_groups::this_cluster();
  const int kr_part = (int)kr_cluster.block_rank();
  int row = blockIdx.x / 4;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;   // the whole cluster: its blocks share the row
  float m = -INFINITY;
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
  for (int j = (int)((kr_from) + kr_lane); j < kr_vbeg; j += 256) {
    m = fmaxf(m, x[row * cols + j]);
  }
  #pragma unroll 2
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 1024) {
    float kr_x[4];
    uint4 kr_word;
    {
      const int j = kr_j0;
      kr_word = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
      memcpy(&kr_x[0], &kr_word, 16);
    }
    #pragma unroll
    for (int kr_k = 0; kr_k < 4; kr_k++) {
      m = fmaxf(m, kr_x[kr_k]);
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < kr_to; j += 256) {
    m = fmaxf(m, x[row * cols + j]);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    m = fmaxf(m, m_other);
  }
  if (kr_lane % 32 == 0) {
    m_part[kr_lane / 32] = m;
  }
  __syncthreads();
  m = m_part[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float m_other_1 = m_part[kr_warp];
    m = fmaxf(m, m_other_1);
  }
  // split_rows: the cluster's 4 partial states of this reduction, combined in rank order
  __shared__ float kr_m_block;
  if (threadIdx.x == 0) {
    kr_m_block = m;
  }
  kr_cluster.sync();
  m = *kr_cluster.map_shared_rank(&kr_m_block, 0);
  for (int kr_rank = 1; kr_rank < 4; kr_rank++) {
    float m_part_1 = *kr_cluster.map_shared_rank(&kr_m_block, kr_rank);
    m = fmaxf(m, m_part_1);
  }
  float mx = m;
  float sum = 0.0f;
  const long long kr_len_1 = (long long)(cols) - (long long)(0);
  const long long kr_chunk_1 = ((kr_len_1 + 3) / 4 + 31) / 32 * 32;   // whole warps' worth
  const long long kr_from_1 = (long long)(0) + kr_part * kr_chunk_1;
  const long long kr_to_1 = kr_from_1 + kr_chunk_1 < (long long)(cols) ? kr_from_1 + kr_chunk_1 : (long long)(cols);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(kr_from_1), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = kr_from_1;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address_1 % 4 == 0 && (long long)(kr_to_1) - kr_vbeg_1 - kr_head_1 >= 1024) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(kr_to_1) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((kr_from_1) + kr_lane); j < kr_vbeg_1; j += 256) {
    sum += expf(x[row * cols + j] - mx);
  }
  #pragma unroll 2
  for (int kr_j0_1 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_1 < kr_vend_1; kr_j0_1 += 1024) {
    float kr_x_1[4];
    uint4 kr_word_1;
    {
      const int j = kr_j0_1;
      kr_word_1 = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
      memcpy(&kr_x_1[0], &kr_word_1, 16);
    }
    #pragma unroll
    for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
      sum += expf(kr_x_1[kr_k_1] - mx);
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < kr_to_1; j += 256) {
    sum += expf(x[row * cols + j] - mx);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float sum_other = __shfl_down_sync(0xffffffffu, sum, kr_offset);
    sum = sum + sum_other;
  }
  if (kr_lane % 32 == 0) {
    sum_part[kr_lane / 32] = sum;
  }
  __syncthreads();
  sum = sum_part[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float sum_other_1 = sum_part[kr_warp];
    sum = sum + sum_other_1;
  }
  // split_rows: the cluster's 4 partial states of this reduction, combined in rank order
  if (threadIdx.x == 0) {
    kr_sum_block = sum;
  }
  __syncthreads();   // planted: a barrier of the block only, where the cluster's belongs
  sum = *kr_cluster.map_shared_rank(&kr_sum_block, 0);
  for (int kr_rank_1 = 1; kr_rank_1 < 4; kr_rank_1++) {
    float sum_part_1 = *kr_cluster.map_shared_rank(&kr_sum_block, kr_rank_1);
    sum = sum + sum_part_1;
  }
  float total = sum;
  const long long kr_len_2 = (long long)(cols) - (long long)(0);
  const long long kr_chunk_2 = ((kr_len_2 + 3) / 4 + 31) / 32 * 32;   // whole warps' worth
  const long long kr_from_2 = (long long)(0) + kr_part * kr_chunk_2;
  const long long kr_to_2 = kr_from_2 + kr_chunk_2 < (long long)(cols) ? kr_from_2 + kr_chunk_2 : (long long)(cols);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_2 = (long long)(kr_from_2), kr_vend_2 = kr_vbeg_2;   // the 16-byte steps: [kr_vbeg_2, kr_vend_2)
  {
    const int j = kr_from_2;
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(y[row * cols + j]);
    const long long kr_head_2 = (long long)((16 - (kr_address_2 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_3 = (unsigned long long)(const void *)&(x[row * cols + j]);
    if (kr_address_2 % 4 == 0 && kr_address_3 % 4 == 0 && (long long)((16 - (kr_address_3 & 15)) & 15) / 4 == kr_head_2 && (long long)(kr_to_2) - kr_vbeg_2 - kr_head_2 >= 1024) {
      kr_vbeg_2 += kr_head_2;
      kr_vend_2 = kr_vbeg_2 + ((long long)(kr_to_2) - kr_vbeg_2) / 4 * 4;
    }
  }
  for (int j = (int)((kr_from_2) + kr_lane); j < kr_vbeg_2; j += 256) {
    y[row * cols + j] = expf(x[row * cols + j] - mx) / total;
  }
  #pragma unroll 2
  for (int kr_j0_2 = (int)(kr_vbeg_2 + kr_lane * 4); kr_j0_2 < kr_vend_2; kr_j0_2 += 1024) {
    float kr_y[4];
    float kr_x_2[4];
    uint4 kr_word_2;
    {
      const int j = kr_j0_2;
      kr_word_2 = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
      memcpy(&kr_x_2[0], &kr_word_2, 16);
    }
    #pragma unroll
    for (int kr_k_2 = 0; kr_k_2 < 4; kr_k_2++) {
      kr_y[kr_k_2] = expf(kr_x_2[kr_k_2] - mx) / total;
    }
    {
      const int j = kr_j0_2;
      memcpy(&kr_word_2, &kr_y[0], 16);
      reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_2;
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_2 + kr_lane); j < kr_to_2; j += 256) {
    y[row * cols + j] = expf(x[row * cols + j] - mx) / total;
  }
  kr_cluster.sync();   // split_rows: no block leaves while another may still read its shared memory
}
