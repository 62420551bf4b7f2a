// One block walks the whole vector (no row index): the largest |v[k]| through an fmaxf tree; the
// block size and the vector's length come from #defines.
#define THREADS 256
#define LEN (1 << 20)
__global__ void __launch_bounds__(256) absmax(const float *v, float *result, unsigned char *workspace = nullptr) {
  // krewrite split_rows: each row over 16 blocks of 256 threads; each row loop strided over the row's threads
  __shared__ float best_part[8];
  // the one row: the original has no row index (every block of its launch computed it)
  // split_rows: each row over 16 blocks; a block's reduction (stage) and part come from a ticket taken at its start,
  // ordered so that a block waits only for blocks that took earlier tickets (so all started): stage s of row r after stage s - 1 of row r + 1
  unsigned int *kr_arrived = reinterpret_cast<unsigned int *>(workspace + (size_t)(1) * 1 * 16 * 1 * 8);
  unsigned int *kr_read = kr_arrived + (size_t)(1) * 1, *kr_ticket = kr_arrived + (size_t)(1) * 2;
  __shared__ unsigned int kr_unit;
  if (threadIdx.x == 0) {
    kr_unit = atomicAdd(kr_ticket, 1u);
    if (kr_unit == gridDim.x - 1) *kr_ticket = 0u;   // every ticket taken: back at zero for the next launch
  }
  __syncthreads();
  const unsigned int kr_u = kr_unit;
  const int kr_part = (int)(kr_u % 16), kr_stage = 1 - (int)(kr_u / 16 % 2);
  int kr_row = (int)(kr_u / 16 / 2) - kr_stage * 2;
  int kr_lane = threadIdx.x;
  if (kr_row < 0 || kr_row >= 1) return;
  float best = 0.0f;
  if (kr_stage == 0) {   // split_rows: this block's part of the row's reduction 0
    const long long kr_len = (long long)(LEN) - (long long)(0);
    const long long kr_chunk = ((kr_len + 15) / 16 + 31) / 32 * 32;   // whole warps' worth
    const long long kr_from = (long long)(0) + kr_part * kr_chunk;
    const long long kr_to = kr_from + kr_chunk < (long long)(LEN) ? kr_from + kr_chunk : (long long)(LEN);
    // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
    long long kr_vbeg = (long long)(kr_from), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
    {
      const int k = kr_from;
      const unsigned long long kr_address = (unsigned long long)(const void *)&(v[k]);
      const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
      if (kr_address % 4 == 0 && (long long)(kr_to) - kr_vbeg - kr_head >= 1024) {
        kr_vbeg += kr_head;
        kr_vend = kr_vbeg + ((long long)(kr_to) - kr_vbeg) / 4 * 4;
      }
    }
    for (int k = (int)((kr_from) + kr_lane); k < kr_vbeg; k += 256) {
      best = fmaxf(best, fabsf(v[k]));
    }
    for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 4096) {   // 4 steps at a time, their loads first
      uint4 kr_pre[4][1];
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        if (kr_j0 + kr_u_1 * 1024 < kr_vend) {
          const int k = kr_j0 + kr_u_1 * 1024;
          kr_pre[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(v[k]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        const int kr_ju = kr_j0 + kr_u_1 * 1024;
        if (kr_ju < kr_vend) {
          float kr_v[4];
          uint4 kr_word;
          {
            kr_word = kr_pre[kr_u_1][0];
            memcpy(&kr_v[0], &kr_word, 16);
          }
          #pragma unroll
          for (int kr_k = 0; kr_k < 4; kr_k++) {
            best = fmaxf(best, fabsf(kr_v[kr_k]));
          }
        }
      }
    }
    #pragma unroll 4
    for (int k = (int)(kr_vend + kr_lane); k < kr_to; k += 256) {
      best = fmaxf(best, fabsf(v[k]));
    }
    // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
    for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
      float best_other = __shfl_down_sync(0xffffffffu, best, kr_offset);
      best = fmaxf(best, best_other);
    }
    if (kr_lane % 32 == 0) {
      best_part[kr_lane / 32] = best;
    }
    __syncthreads();
    best = best_part[0];
    for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
      float best_other_1 = best_part[kr_warp];
      best = fmaxf(best, best_other_1);
    }
    if (threadIdx.x == 0) {
      *reinterpret_cast<float *>(workspace + ((((size_t)kr_row * 1 + 0) * 16 + kr_part) * 1 + 0) * 8) = best;
      __threadfence();
      atomicAdd(&kr_arrived[kr_row * 1 + 0], 1u);
    }
    return;
  }
  // split_rows: the row's 16 parts of this reduction, combined in a fixed order once all arrived
  if (threadIdx.x == 0) {
    while (atomicAdd(&kr_arrived[kr_row * 1 + 0], 0u) < 16u) {
      __nanosleep(200);   // poll gently: the parts still walking the row need the memory system
    }
  }
  __syncthreads();
  __threadfence();
  __shared__ float kr_best_row;
  if (threadIdx.x < 32) {   // warp 0: lane l the parts l, l + 32, ... in order, then a shuffle tree
    bool kr_has = (int)threadIdx.x < 16;
    if (kr_has) {
      best = __ldcg(&*reinterpret_cast<float *>(workspace + ((((size_t)kr_row * 1 + 0) * 16 + threadIdx.x) * 1 + 0) * 8));
    }
    for (int kr_p = threadIdx.x + 32; kr_p < 16; kr_p += 32) {
      float best_part_1 = __ldcg(&*reinterpret_cast<float *>(workspace + ((((size_t)kr_row * 1 + 0) * 16 + kr_p) * 1 + 0) * 8));
      best = fmaxf(best, best_part_1);
    }
    for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
      const bool kr_has_other = __shfl_down_sync(0xffffffffu, kr_has, kr_offset) && threadIdx.x + kr_offset < 32;
      float best_other_2 = __shfl_down_sync(0xffffffffu, best, kr_offset);
      if (kr_has_other && kr_has) {
        best = fmaxf(best, best_other_2);
      } else if (kr_has_other) {
        best = best_other_2;
        kr_has = true;
      }
    }
    if (threadIdx.x == 0) {
      kr_best_row = best;
    }
  }
  __syncthreads();
  best = kr_best_row;
  if (threadIdx.x == 0 && atomicAdd(&kr_read[kr_row * 1 + 0], 1u) == 15u) {   // the last of the 16 blocks reading these
    kr_arrived[kr_row * 1 + 0] = 0u;
    kr_read[kr_row * 1 + 0] = 0u;
  }
  if (kr_part == 0 && kr_lane == 0) {
    *result = best;
  }
}
