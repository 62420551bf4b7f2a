// An element passed to a member function the front end cannot see (a cooperative-groups tile's
// shuffle): the refusal names the callee as written.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void warp_sum(const float *x, float *out) {
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cg::this_thread_block());
  float v = tile32.shfl_down(x[threadIdx.x], 16);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
