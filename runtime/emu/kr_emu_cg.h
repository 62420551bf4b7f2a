// runtime/emu/kr_emu_cg.h: the basics of cooperative_groups for the CPU emulator: thread_block
// (also from block_tile_memory, which it does not need),
// thread_block_tile<N> (N a power of two up to 32: sync, ranks, shuffles, votes), the dynamic
// tiled_partition, reduce and the scans over tiles, memcpy_async/wait, and grid_group without
// grid.sync() (blocks run one after another here, so a grid-wide barrier cannot be honoured:
// calling it stops the launch with that error). coalesced_threads() is not provided: which
// lanes are converged is not something fibers can know.
#ifndef KR_EMU_CG_H
#define KR_EMU_CG_H

namespace cooperative_groups {

namespace kr_detail {
inline unsigned linear_rank() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
// The lanes of the running thread's tile of `n` threads (n a power of two up to 32).
inline unsigned tile_mask(unsigned n) {
  unsigned lane = linear_rank() % 32;
  unsigned base = lane / n * n;
  return (n == 32 ? 0xffffffffu : ((1u << n) - 1u)) << base;
}
}  // namespace kr_detail

class thread_group {
 public:
  explicit thread_group(unsigned tile = 0) : tile_(tile) {}
  void sync() const {
    if (tile_) __syncwarp(kr_detail::tile_mask(tile_));
    else __syncthreads();
  }
  unsigned long long size() const { return tile_ ? tile_ : kr_detail::block_threads(); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const {
    return tile_ ? kr_detail::linear_rank() % tile_ : kr_detail::linear_rank();
  }
  bool is_valid() const { return true; }

 protected:
  unsigned tile_;  // 0: the whole block
};

class thread_block : public thread_group {
 public:
  thread_block() : thread_group(0) {}
  static void sync() { __syncthreads(); }
  static unsigned long long size() { return kr_detail::block_threads(); }
  static unsigned long long num_threads() { return kr_detail::block_threads(); }
  static unsigned long long thread_rank() { return kr_detail::linear_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

// block_tile_memory: the shared memory that tiles of more than 32 threads need on GPUs before
// sm_80, handed to this_thread_block (CUDA 12; CUDA 11 had it in `experimental`, with a tile
// communication size first). The emulator needs none of it: the block is the block, and tiles
// are those below (up to 32 threads).
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
  alignas(16) unsigned char reserved[16];
};
template <unsigned int M>
inline thread_block this_thread_block(block_tile_memory<M> &) { return thread_block(); }

template <unsigned N, class Parent = void>
class thread_block_tile : public thread_group {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "the krewrite CPU emulator supports thread_block_tile<N> for N a power of two up to 32");

 public:
  thread_block_tile() : thread_group(N) {}
  template <class P>
  thread_block_tile(const thread_block_tile<N, P> &) : thread_group(N) {}
  static unsigned mask() { return kr_detail::tile_mask(N); }
  void sync() const { __syncwarp(mask()); }
  static constexpr unsigned long long size() { return N; }
  static constexpr unsigned long long num_threads() { return N; }
  unsigned long long thread_rank() const { return kr_detail::linear_rank() % N; }
  unsigned long long meta_group_rank() const { return kr_detail::linear_rank() / N; }
  unsigned long long meta_group_size() const { return (kr_detail::block_threads() + N - 1) / N; }
  template <class T> T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, (int)N); }
  template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask(), v, d, (int)N); }
  template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask(), v, d, (int)N); }
  template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask(), v, m, (int)N); }
  int any(int p) const { return __any_sync(mask(), p); }
  int all(int p) const { return __all_sync(mask(), p); }
  unsigned ballot(int p) const {
    unsigned base = kr_detail::linear_rank() % 32 / N * N;
    return __ballot_sync(mask(), p) >> base;
  }
  template <class T> unsigned match_any(T v) const {
    unsigned base = kr_detail::linear_rank() % 32 / N * N;
    return __match_any_sync(mask(), v) >> base;
  }
};

template <unsigned N, class P>
inline thread_block_tile<N, P> tiled_partition(const P &) {
  return thread_block_tile<N, P>();
}

inline thread_group tiled_partition(const thread_group &, unsigned n) {
  if (n == 0 || n > 32 || (n & (n - 1)))
    kr_emu::fail("called tiled_partition(group, %u), but the emulator supports tiles of 1, 2, 4, 8, 16 or 32 threads", n);
  return thread_group(n);
}

template <class G> inline void sync(const G &g) { g.sync(); }

namespace experimental {
template <unsigned int TileCommunicationSize = 8, unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
  alignas(16) unsigned char reserved[16];
};
template <unsigned int C, unsigned int M>
inline thread_block this_thread_block(block_tile_memory<C, M> &) { return thread_block(); }
using cooperative_groups::thread_block_tile;
using cooperative_groups::tiled_partition;
}  // namespace experimental

class grid_group {
 public:
  void sync() const {
    kr_emu::fail("called grid_group::sync(), which the CPU emulator cannot honour (its blocks run one after another)");
  }
  unsigned long long size() const { return (unsigned long long)kr_detail::block_threads() * num_blocks(); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long block_rank() const {
    return blockIdx.x + (unsigned long long)blockIdx.y * gridDim.x +
           (unsigned long long)blockIdx.z * gridDim.x * gridDim.y;
  }
  unsigned long long thread_rank() const { return block_rank() * kr_detail::block_threads() + kr_detail::linear_rank(); }
  unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  static dim3 group_dim() { return gridDim; }
  bool is_valid() const { return true; }
};

inline grid_group this_grid() { return grid_group(); }

// Thread block clusters (kr_emu_cluster.h): the blocks of a kernel compiled with __cluster_dims__
// run together; a launch without clusters is a cluster of one block, as on sm_90.
class cluster_group {
 public:
  void sync() const { kr_emu::cluster_barrier(); }
  struct arrival_token {};
  static arrival_token barrier_arrive() {
    kr_emu::cluster_arrive();
    return arrival_token();
  }
  static void barrier_wait() { kr_emu::cluster_wait(); }
  static void barrier_wait(arrival_token &&) { kr_emu::cluster_wait(); }
  static unsigned block_rank() { return kr_emu::cluster_rank(); }
  static unsigned num_blocks() { return kr_emu::G.size; }
  static dim3 dim_blocks() { return dim3(kr_emu::G.dim[0], kr_emu::G.dim[1], kr_emu::G.dim[2]); }
  static dim3 block_index() {
    return dim3(blockIdx.x % kr_emu::G.dim[0], blockIdx.y % kr_emu::G.dim[1], blockIdx.z % kr_emu::G.dim[2]);
  }
  static unsigned long long num_threads() { return (unsigned long long)kr_detail::block_threads() * kr_emu::G.size; }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long thread_rank() {
    return (unsigned long long)block_rank() * kr_detail::block_threads() + kr_detail::linear_rank();
  }
  template <class T> T *map_shared_rank(T *addr, unsigned rank) const {
    return static_cast<T *>(kr_emu::shared_of_rank(addr, rank));
  }
  template <class T> T &map_shared_rank(T &addr, unsigned rank) const {
    return *static_cast<T *>(kr_emu::shared_of_rank(&addr, rank));
  }
  static bool is_valid() { return true; }
};

inline cluster_group this_cluster() { return cluster_group(); }

// ---- Reductions and scans over tiles -------------------------------------------------------------------

template <class T> struct plus { T operator()(const T &a, const T &b) const { return a + b; } };
template <class T> struct less { T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(const T &a, const T &b) const { return a & b; } };
template <class T> struct bit_or { T operator()(const T &a, const T &b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(const T &a, const T &b) const { return a ^ b; } };

template <unsigned N, class P, class T, class Op>
inline T reduce(const thread_block_tile<N, P> &g, T v, Op op) {
  for (unsigned i = N / 2; i > 0; i /= 2) v = op(v, g.shfl_xor(v, (int)i));
  return v;
}

template <unsigned N, class P, class T, class Op>
inline T inclusive_scan(const thread_block_tile<N, P> &g, T v, Op op) {
  unsigned r = (unsigned)g.thread_rank();
  for (unsigned i = 1; i < N; i *= 2) {
    T o = g.shfl_up(v, i);
    if (r >= i) v = op(v, o);
  }
  return v;
}
template <unsigned N, class P, class T>
inline T inclusive_scan(const thread_block_tile<N, P> &g, T v) {
  return inclusive_scan(g, v, plus<T>());
}

template <unsigned N, class P, class T, class Op>
inline T exclusive_scan(const thread_block_tile<N, P> &g, T v, Op op) {
  T inc = inclusive_scan(g, v, op);
  T prev = g.shfl_up(inc, 1);
  return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned N, class P, class T>
inline T exclusive_scan(const thread_block_tile<N, P> &g, T v) {
  return exclusive_scan(g, v, plus<T>());
}

// ---- memcpy_async / wait ---------------------------------------------------------------------------------
// The group's first thread queues the copy, one stage per call; wait() completes them and syncs
// the group, wait_prior<N>() leaves the N latest stages pending.

template <class G>
inline void memcpy_async(const G &g, void *dst, const void *src, size_t bytes) {
  if (g.thread_rank() != 0) return;
  kr_emu::copy_async(dst, src, bytes, 0);
  kr_emu::copy_commit();
}
template <class G, class T>
inline void memcpy_async(const G &g, T *dst, size_t dst_count, const T *src, size_t src_count) {
  size_t n = dst_count < src_count ? dst_count : src_count;
  memcpy_async(g, static_cast<void *>(dst), static_cast<const void *>(src), n * sizeof(T));
}
template <class G>
inline void wait(const G &g) {
  kr_emu::copy_wait_prior(0);
  g.sync();
}
template <unsigned Stages, class G>
inline void wait_prior(const G &g) {
  kr_emu::copy_wait_prior(Stages);
  g.sync();
}

}  // namespace cooperative_groups

#endif
