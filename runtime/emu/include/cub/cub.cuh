// Stand-in for CUB (<cub/cub.cuh>) in the krewrite CPU emulator: enough for host code to compile.
// The device-wide algorithms (cub::DeviceReduce::Sum, DeviceScan, DeviceRadixSort, …) are host
// calls that launch CUB's own kernels; the emulator runs the kernels of the .cu, never the host's
// calls into libraries, and CUB is not emulated. They are declared and not defined (any arguments
// after the temporary storage and its size), so a call that is reached at run time fails with its
// name and its line (docs/problems.md, "Host code"). The operators, DoubleBuffer and
// CachingDeviceAllocator's construction (often a global) are defined, since they compute nothing
// on a device. The block- and warp-level primitives (BlockReduce, BlockScan, WarpReduce, WarpScan)
// run inside kernels and are refused, with a message, where a kernel uses one.
#pragma once
#include "../../kr_cuda_shim.h"

#define CUB_VERSION 200200
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
#define CUB_RUNTIME_FUNCTION
#define CUB_NS_PREFIX
#define CUB_NS_POSTFIX
#define CUB_PTX_ARCH 900

namespace cub {

// ---- Operators and small types ---------------------------------------------------------------------------
struct Sum {
  template <class T, class U> auto operator()(const T &a, const U &b) const { return a + b; }
};
struct Max {
  template <class T, class U> auto operator()(const T &a, const U &b) const { return a < b ? b : a; }
};
struct Min {
  template <class T, class U> auto operator()(const T &a, const U &b) const { return b < a ? b : a; }
};
struct Equality {
  template <class T, class U> bool operator()(const T &a, const U &b) const { return a == b; }
};
struct NullType {};
template <class K, class V> struct KeyValuePair {
  K key;
  V value;
};
template <class T> struct DoubleBuffer {
  T *d_buffers[2] = {nullptr, nullptr};
  int selector = 0;
  DoubleBuffer() = default;
  DoubleBuffer(T *current, T *alternate) : d_buffers{current, alternate} {}
  T *Current() { return d_buffers[selector]; }
  T *Alternate() { return d_buffers[selector ^ 1]; }
};

// ---- Device-wide algorithms: declared only ----------------------------------------------------------------
#define KR_CUB_ALGORITHM(name)                                                                    \
  template <class... A>                                                                           \
  static cudaError_t name(void *d_temp_storage, size_t &temp_storage_bytes, A &&...args);

struct DeviceReduce {
  KR_CUB_ALGORITHM(Reduce) KR_CUB_ALGORITHM(Sum) KR_CUB_ALGORITHM(Min) KR_CUB_ALGORITHM(Max)
  KR_CUB_ALGORITHM(ArgMin) KR_CUB_ALGORITHM(ArgMax) KR_CUB_ALGORITHM(ReduceByKey)
  KR_CUB_ALGORITHM(TransformReduce)
};
struct DeviceSegmentedReduce {
  KR_CUB_ALGORITHM(Reduce) KR_CUB_ALGORITHM(Sum) KR_CUB_ALGORITHM(Min) KR_CUB_ALGORITHM(Max)
  KR_CUB_ALGORITHM(ArgMin) KR_CUB_ALGORITHM(ArgMax)
};
struct DeviceScan {
  KR_CUB_ALGORITHM(InclusiveSum) KR_CUB_ALGORITHM(ExclusiveSum) KR_CUB_ALGORITHM(InclusiveScan)
  KR_CUB_ALGORITHM(ExclusiveScan) KR_CUB_ALGORITHM(InclusiveSumByKey)
  KR_CUB_ALGORITHM(ExclusiveSumByKey) KR_CUB_ALGORITHM(InclusiveScanByKey)
  KR_CUB_ALGORITHM(ExclusiveScanByKey)
};
struct DeviceRadixSort {
  KR_CUB_ALGORITHM(SortKeys) KR_CUB_ALGORITHM(SortPairs) KR_CUB_ALGORITHM(SortKeysDescending)
  KR_CUB_ALGORITHM(SortPairsDescending)
};
struct DeviceSegmentedRadixSort {
  KR_CUB_ALGORITHM(SortKeys) KR_CUB_ALGORITHM(SortPairs) KR_CUB_ALGORITHM(SortKeysDescending)
  KR_CUB_ALGORITHM(SortPairsDescending)
};
struct DeviceSelect {
  KR_CUB_ALGORITHM(If) KR_CUB_ALGORITHM(Flagged) KR_CUB_ALGORITHM(Unique) KR_CUB_ALGORITHM(UniqueByKey)
};
struct DevicePartition { KR_CUB_ALGORITHM(If) KR_CUB_ALGORITHM(Flagged) };
struct DeviceHistogram { KR_CUB_ALGORITHM(HistogramEven) KR_CUB_ALGORITHM(HistogramRange) };
struct DeviceRunLengthEncode { KR_CUB_ALGORITHM(Encode) KR_CUB_ALGORITHM(NonTrivialRuns) };
#undef KR_CUB_ALGORITHM

// The caching allocator: constructing and destroying one does nothing on a device; allocating
// and freeing are declared only.
struct CachingDeviceAllocator {
  static constexpr unsigned int INVALID_BIN = (unsigned int)-1;
  static constexpr size_t INVALID_SIZE = (size_t)-1;
  CachingDeviceAllocator(unsigned int, unsigned int = 1, unsigned int = INVALID_BIN,
                         size_t = INVALID_SIZE, bool = false, bool = false) {}
  explicit CachingDeviceAllocator(bool = false, bool = false) {}
  cudaError_t DeviceAllocate(int device, void **d_ptr, size_t bytes, cudaStream_t stream = 0);
  cudaError_t DeviceAllocate(void **d_ptr, size_t bytes, cudaStream_t stream = 0);
  cudaError_t DeviceFree(int device, void *d_ptr);
  cudaError_t DeviceFree(void *d_ptr);
  cudaError_t FreeAllCached();
};

// ---- Block- and warp-level primitives: refused where a kernel uses one -------------------------------------
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

// Their usual members are declared too, so that the one error is the refusal.
template <class T>
struct kr_refused {
  struct TempStorage {};
  template <class... A> kr_refused(A &&...) {}
  template <class... A> T Sum(A &&...);
  template <class... A> T Reduce(A &&...);
  template <class... A> void ExclusiveSum(A &&...);
  template <class... A> void InclusiveSum(A &&...);
  template <class... A> void ExclusiveScan(A &&...);
  template <class... A> void InclusiveScan(A &&...);
};
#define KR_CUB_REFUSED(name)                                                                      \
  static_assert(sizeof(T) == 0, "cub::" name " is not run by the krewrite CPU emulator: CUB's device-wide " \
                "host calls compile (and fail if reached), its block and warp primitives do not"); \
  using kr_refused<T>::kr_refused
template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm = BLOCK_REDUCE_WARP_REDUCTIONS, int = 1, int = 1, int = 0>
class BlockReduce : public kr_refused<T> {
  KR_CUB_REFUSED("BlockReduce");
};
template <class T, int BLOCK_DIM_X, BlockScanAlgorithm = BLOCK_SCAN_RAKING, int = 1, int = 1, int = 0>
class BlockScan : public kr_refused<T> {
  KR_CUB_REFUSED("BlockScan");
};
template <class T, int LOGICAL_WARP_THREADS = 32, int = 0>
class WarpReduce : public kr_refused<T> {
  KR_CUB_REFUSED("WarpReduce");
};
template <class T, int LOGICAL_WARP_THREADS = 32, int = 0>
class WarpScan : public kr_refused<T> {
  KR_CUB_REFUSED("WarpScan");
};
#undef KR_CUB_REFUSED

}  // namespace cub
