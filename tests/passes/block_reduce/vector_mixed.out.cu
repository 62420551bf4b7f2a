// A thread-per-row RMS norm over bf16 rows with an fp32 weight, x read through a row pointer
// declared in the kernel: the accesses move by 16-byte words (8 bf16, or 8 floats in two words), from the
// first element at which x's row, y's row and the weight all sit on a 16-byte boundary.
#include <cuda_bf16.h>

__global__ void __launch_bounds__(128) rmsnorm_mixed(const __nv_bfloat16 *__restrict__ x, const float *__restrict__ w,
                              __nv_bfloat16 *__restrict__ y, int rows, int n, float eps) {
  // krewrite block_reduce: one block of 128 threads per row; each row loop strided over the row's threads
  __shared__ float ss_part[4];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  const __nv_bfloat16 *xr = x + (size_t)row * n;
  float ss = 0.0f;
  // 8 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(xr[j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 2;   // elements before a 16-byte boundary
    if (kr_address % 2 == 0 && (long long)(n) - kr_vbeg - kr_head >= 1024) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(n) - kr_vbeg) / 8 * 8;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 128) {
    float v = __bfloat162float(xr[j]);
    ss += v * v;
  }
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 8); kr_j0 < kr_vend; kr_j0 += 4096) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][1];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0 + kr_u * 1024 < kr_vend) {
        const int j = kr_j0 + kr_u * 1024;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(xr[j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      const int kr_ju = kr_j0 + kr_u * 1024;
      if (kr_ju < kr_vend) {
        __nv_bfloat16 kr_xr[8];
        uint4 kr_word;
        {
          kr_word = kr_pre[kr_u][0];
          memcpy(&kr_xr[0], &kr_word, 16);
        }
        #pragma unroll
        for (int kr_k = 0; kr_k < 8; kr_k++) {
          float v = __bfloat162float(kr_xr[kr_k]);
          ss += v * v;
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < n; j += 128) {
    float v = __bfloat162float(xr[j]);
    ss += v * v;
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float ss_other = __shfl_down_sync(0xffffffffu, ss, kr_offset);
    ss = ss + ss_other;
  }
  if (kr_lane % 32 == 0) {
    ss_part[kr_lane / 32] = ss;
  }
  __syncthreads();
  ss = ss_part[0];
  for (int kr_warp = 1; kr_warp < 4; kr_warp++) {
    float ss_other_1 = ss_part[kr_warp];
    ss = ss + ss_other_1;
  }
  float inv = rsqrtf(ss / n + eps);
  // 8 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(0), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = 0;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(y[(size_t)row * n + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 2;   // elements before a 16-byte boundary
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(xr[j]);
    const unsigned long long kr_address_3 = (unsigned long long)(const void *)&(w[j]);
    if (kr_address_1 % 2 == 0 && kr_address_2 % 2 == 0 && (long long)((16 - (kr_address_2 & 15)) & 15) / 2 == kr_head_1 && kr_address_3 % 4 == 0 && (long long)((16 - (kr_address_3 & 15)) & 15) / 4 == kr_head_1 && (long long)(n) - kr_vbeg_1 - kr_head_1 >= 1024) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(n) - kr_vbeg_1) / 8 * 8;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg_1; j += 128) {
    y[(size_t)row * n + j] = __float2bfloat16(__bfloat162float(xr[j]) * inv * w[j]);
  }
  for (int kr_j0_1 = (int)(kr_vbeg_1 + kr_lane * 8); kr_j0_1 < kr_vend_1; kr_j0_1 += 2048) {   // 2 steps at a time, their loads first
    uint4 kr_pre_1[2][3];
    #pragma unroll
    for (int kr_u_1 = 0; kr_u_1 < 2; kr_u_1++) {
      if (kr_j0_1 + kr_u_1 * 1024 < kr_vend_1) {
        const int j = kr_j0_1 + kr_u_1 * 1024;
        kr_pre_1[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(xr[j]))[0];
        kr_pre_1[kr_u_1][1] = reinterpret_cast<const uint4 *>(&(w[j]))[0];
        kr_pre_1[kr_u_1][2] = reinterpret_cast<const uint4 *>(&(w[j]))[1];
      }
    }
    #pragma unroll
    for (int kr_u_1 = 0; kr_u_1 < 2; kr_u_1++) {
      const int kr_ju_1 = kr_j0_1 + kr_u_1 * 1024;
      if (kr_ju_1 < kr_vend_1) {
        __nv_bfloat16 kr_y[8];
        __nv_bfloat16 kr_xr_1[8];
        float kr_w[8];
        uint4 kr_word_1;
        {
          kr_word_1 = kr_pre_1[kr_u_1][0];
          memcpy(&kr_xr_1[0], &kr_word_1, 16);
          kr_word_1 = kr_pre_1[kr_u_1][1];
          memcpy(&kr_w[0], &kr_word_1, 16);
          kr_word_1 = kr_pre_1[kr_u_1][2];
          memcpy(&kr_w[4], &kr_word_1, 16);
        }
        #pragma unroll
        for (int kr_k_1 = 0; kr_k_1 < 8; kr_k_1++) {
          kr_y[kr_k_1] = __float2bfloat16(__bfloat162float(kr_xr_1[kr_k_1]) * inv * kr_w[kr_k_1]);
        }
        {
          const int j = kr_ju_1;
          memcpy(&kr_word_1, &kr_y[0], 16);
          reinterpret_cast<uint4 *>(&(y[(size_t)row * n + j]))[0] = kr_word_1;
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < n; j += 128) {
    y[(size_t)row * n + j] = __float2bfloat16(__bfloat162float(xr[j]) * inv * w[j]);
  }
}
