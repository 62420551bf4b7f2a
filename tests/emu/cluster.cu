// tests/emu/cluster.cu: thread block clusters on the CPU emulator (tests/unit/test_emu.c): blocks
// of a cluster that meet at cluster.sync() and read each other's shared memory.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each row of `cols` over a cluster of 4 blocks: a block sums its quarter (a shared-memory tree),
// leaves its sum in its shared memory, and after cluster.sync() every block adds the four in rank
// order (distributed shared memory) and writes the row's total once per block.
__global__ void __cluster_dims__(4, 1, 1) cluster_row_sum(const float *x, float *out, int cols) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float part[128];
  __shared__ float mine;
  const unsigned rank = cluster.block_rank();
  const int row = blockIdx.x / 4, quarter = (cols + 3) / 4;
  const int from = rank * quarter, to = from + quarter < cols ? from + quarter : cols;
  float s = 0.0f;
  for (int j = from + threadIdx.x; j < to; j += blockDim.x) s += x[row * cols + j];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) mine = part[0];
  cluster.sync();
  float total = 0.0f;
  for (unsigned r = 0; r < cluster.num_blocks(); r++) total += *cluster.map_shared_rank(&mine, r);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
  cluster.sync();   // no block leaves while another may still read its shared memory
}

// The same exchange through dynamic shared memory, a cluster of 2 along y.
__global__ void __cluster_dims__(1, 2, 1) cluster_dynamic(float *out) {
  extern __shared__ float dyn[];
  cg::cluster_group cluster = cg::this_cluster();
  dyn[threadIdx.x] = (float)(blockIdx.y * 100 + threadIdx.x);
  cluster.sync();
  const float *other = cluster.map_shared_rank(dyn, cluster.block_rank() ^ 1u);
  out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = other[blockDim.x - 1 - threadIdx.x];
  cluster.sync();
}

// split_rows' pushed exchange: kr_cluster_* come from the shim. A .cu for the GPU defines them with
// inline PTX under #ifndef KR_CUDA_EMULATOR, which the emulator's view leaves to the preprocessor
// (this one would be refused if it read it).
#ifndef KR_CUDA_EMULATOR
__device__ __forceinline__ void kr_cluster_opened() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
#endif

// Each block of a cluster of 4 pushes its value into slot `rank` of every block, then sums the
// slots in rank order once its mbarrier has counted them. mode 1: rank 0 never pushes; mode 2: a
// block reads a slot before it waits; mode 3: each block pushes into itself, five times.
__global__ void __cluster_dims__(4, 1, 1) cluster_push(float *out, int mode) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float slots[4];
  __shared__ unsigned long long bar[1];
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) kr_cluster_expect(&bar[0], 4 * sizeof(float));
  kr_cluster_open();
  const float mine = (float)(blockIdx.x * 10 + 1);
  kr_cluster_opened();
  if (threadIdx.x == 0 && mode == 3)
    for (int k = 0; k < 5; k++) kr_cluster_push(&slots[rank], &bar[0], rank, mine);
  else if (threadIdx.x == 0 && !(mode == 1 && rank == 0))
    for (unsigned to = 0; to < 4; to++) kr_cluster_push(&slots[rank], &bar[0], to, mine);
  float total = mode == 2 ? slots[(rank + 1) % 4] : 0.0f;
  kr_cluster_wait(&bar[0]);
  for (unsigned r = 0; r < 4; r++) total += slots[r];
  out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

// Only the first block of each cluster reaches the barrier: the others have exited.
__global__ void __cluster_dims__(2, 1, 1) cluster_half_sync(float *out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (cluster.block_rank() == 0) cluster.sync();
  if (threadIdx.x == 0) out[blockIdx.x] = 1.0f;
}

// No __cluster_dims__: a launch is a cluster of one block.
__global__ void cluster_of_one(float *out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float v;
  if (threadIdx.x == 0) v = 7.0f;
  cluster.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = *cluster.map_shared_rank(&v, 0) + (float)cluster.num_blocks();
}

// The split barrier: each block leaves its rank + 1 in its shared memory, arrives, does its own
// work (a block barrier among its threads), then waits; after the wait every block's value is
// there to read. A wait that returned early would read another block's value before it was written.
__global__ void __cluster_dims__(4, 1, 1) cluster_split_barrier(float *out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float v;
  __shared__ float own[64];
  if (threadIdx.x == 0) v = 0.0f;
  cluster.sync();
  if (threadIdx.x == 0) v = (float)(cluster.block_rank() + 1);
  cluster.barrier_arrive();
  own[threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  float mine = own[blockDim.x - 1 - threadIdx.x];
  cluster.barrier_wait();
  float total = 0.0f;
  for (unsigned r = 0; r < cluster.num_blocks(); r++) total += *cluster.map_shared_rank(&v, r);
  out[blockIdx.x * blockDim.x + threadIdx.x] = total * 100.0f + mine;
  cluster.sync();
}

// A thread that waits without having arrived.
__global__ void __cluster_dims__(2, 1, 1) cluster_wait_unarrived(float *out) {
  cg::cluster_group cluster = cg::this_cluster();
  cluster.barrier_wait();
  out[blockIdx.x] = 1.0f;
}

// Blocks that wait for each other through memory (kr_emu_resident.h): every block leaves a value,
// counts itself in and polls the count (napping at __nanosleep) until the whole grid has arrived;
// then each reads every block's value and its own shared variable, which must have stayed its own
// while the others ran.
__global__ void resident_grid_barrier(float *vals, float *out, unsigned *count) {
  __shared__ float mine;
  if (threadIdx.x == 0) {
    mine = (float)blockIdx.x * 100.0f;
    vals[blockIdx.x] = (float)(blockIdx.x + 1);
    __threadfence();
    atomicAdd(count, 1u);
    while (atomicAdd(count, 0u) < gridDim.x) __nanosleep(100);
  }
  __syncthreads();
  float total = 0.0f;
  for (unsigned b = 0; b < gridDim.x; b++) total += vals[b];
  out[blockIdx.x * blockDim.x + threadIdx.x] = total + mine;
}

// A flag no block ever sets.
__global__ void resident_wait_forever(unsigned *flag, float *out) {
  if (threadIdx.x == 0)
    while (atomicAdd(flag, 0u) == 0u) __nanosleep(100);
  __syncthreads();
  out[blockIdx.x] = 1.0f;
}
