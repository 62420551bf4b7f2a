// runtime/emu/kr_emu_entry.h: a host entry point run in an emulator module (docs/problems.md, "Host
// entry points"). A spec's `entry` names a host function of the .cu that krewrite calls instead of
// a launch list. The emulator view keeps that function's body (and those it calls), rewrites each
// launch in it, `k<<<grid, block, shmem, stream>>>(args…)`, into
//   kr_emu::host_launch(kr_entry_<i>, &k, <line>, grid, block, shmem, stream)(args…)
// (the arguments keep their place, so lines stay where they are), and appends
//   KR_EMU_HOST_RUNTIME
//   KR_EMU_CALL_ENTRY(f)
// which define the CUDA runtime calls a launcher makes and the exported kr_emu_call_entry. The
// child process (runtime/emu_run.c) sets kr_emu_host_hooks and calls kr_emu_call_entry; each launch
// comes back to it through the hook, which runs it as a spec launch is run (the same checks, seeds
// and reports).
//
// Device memory is host memory here: cudaMalloc is a guarded allocation the memory checker knows
// (a temporary, never freed before the child ends; cudaFree does nothing), cudaMemcpy and
// cudaMemset are memmove and memset, and synchronisation returns at once (every launch has ended
// when the hook returns). Streams are all the default stream. A kernel's attributes and cache
// preferences (cudaFuncSetAttribute, as a launcher sets a dynamic shared memory size over 48 KB)
// are accepted and change nothing: every launch may have the device's whole shared memory.
#ifndef KR_EMU_ENTRY_H
#define KR_EMU_ENTRY_H

extern "C" KrEmuHostHooks kr_emu_host_hooks;

namespace kr_emu {

// The launch of kernel `entry` with the configuration of a <<<…>>>; called with the launch's
// arguments, converted to the kernel's parameter types as a call converts them.
template <class... P>
struct HostLaunch {
  void (*entry)(void **);
  int line;
  dim3 grid, block;
  size_t shmem;
  template <class... A>
  void operator()(A &&...a) const {
    static_assert(sizeof...(A) == sizeof...(P), "a launch passes as many arguments as the kernel takes");
    auto run = [this](std::decay_t<P>... v) {
      void *args[] = {(void *)&v..., nullptr};
      const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
      kr_emu_host_hooks.launch(entry, args, g, b, shmem, line);
    };
    run(std::forward<A>(a)...);
  }
};

template <class... P, class S = int>
inline HostLaunch<P...> host_launch(void (*entry)(void **), void (*)(P...), int line, dim3 grid, dim3 block,
                                    size_t shmem = 0, S = 0) {
  return HostLaunch<P...>{entry, line, grid, block, shmem};
}

// The entry function called with parameter i read from a[i].
template <class R, class... P, size_t... I>
inline void call_host_(R (*f)(P...), void **a, std::index_sequence<I...>) {
  f(*static_cast<std::decay_t<P> *>(a[I])...);
}

template <class R, class... P>
inline void call_host(R (*f)(P...), void **a) {
  call_host_(f, a, std::index_sequence_for<P...>{});
}

}  // namespace kr_emu

#define KR_EMU_CALL_ENTRY(f)                                                                       \
  KR_EMU_EXPORT void kr_emu_call_entry(void **a) { kr_emu::call_host(&f, a); }

// The CUDA runtime a launcher calls, on the emulator's memory (see the top of this file).
#define KR_EMU_HOST_RUNTIME                                                                        \
  KR_EMU_EXPORT KrEmuHostHooks kr_emu_host_hooks = {nullptr, nullptr};                             \
  extern "C" {                                                                                     \
  KR_EMU_NOSAN cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }                     \
  KR_EMU_NOSAN cudaError_t cudaThreadSynchronize(void) { return cudaSuccess; }                     \
  KR_EMU_NOSAN cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }             \
  KR_EMU_NOSAN cudaError_t cudaGetLastError(void) { return cudaSuccess; }                          \
  KR_EMU_NOSAN cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }                       \
  KR_EMU_NOSAN cudaError_t cudaMalloc(void **p, size_t n) {                                        \
    *p = kr_emu_host_hooks.alloc(n);                                                               \
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;                                           \
  }                                                                                                \
  KR_EMU_NOSAN cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t) { return cudaMalloc(p, n); } \
  KR_EMU_NOSAN cudaError_t cudaFree(void *) { return cudaSuccess; }                                \
  KR_EMU_NOSAN cudaError_t cudaFreeAsync(void *, cudaStream_t) { return cudaSuccess; }             \
  KR_EMU_NOSAN cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {          \
    memmove(d, s, n);                                                                              \
    return cudaSuccess;                                                                            \
  }                                                                                                \
  KR_EMU_NOSAN cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) { \
    memmove(d, s, n);                                                                              \
    return cudaSuccess;                                                                            \
  }                                                                                                \
  KR_EMU_NOSAN cudaError_t cudaMemset(void *p, int v, size_t n) {                                  \
    memset(p, v, n);                                                                               \
    return cudaSuccess;                                                                            \
  }                                                                                                \
  KR_EMU_NOSAN cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) {               \
    memset(p, v, n);                                                                               \
    return cudaSuccess;                                                                            \
  }                                                                                                \
  KR_EMU_NOSAN cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int) { return cudaSuccess; } \
  KR_EMU_NOSAN cudaError_t cudaFuncSetCacheConfig(const void *, cudaFuncCache) { return cudaSuccess; }          \
  KR_EMU_NOSAN cudaError_t cudaFuncSetSharedMemConfig(const void *, cudaSharedMemConfig) { return cudaSuccess; } \
  }

#endif
