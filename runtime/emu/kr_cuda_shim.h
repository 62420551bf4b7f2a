// runtime/emu/kr_cuda_shim.h: makes a CUDA .cu file compile and run as C++17 on the CPU, for the
// krewrite emulator (runtime/emu.h). g++ force-includes it (-include) before the emulator view of
// the .cu; the stand-in headers in include/ (cuda_runtime.h, cuda_fp16.h, mma.h, …) include it.
//
// What it gives: the CUDA qualifiers as macros, the built-in index variables, the vector types,
// a fiber scheduler for the threads of a block (kr_emu_sched.h), the device intrinsics
// (kr_emu_intrin.h), half and bfloat16 (kr_emu_half.h), WMMA (kr_emu_wmma.h), the inline PTX it
// runs (kr_emu_ptx.h: mma.sync, ldmatrix, cvt.rna.tf32.f32), cooperative groups (kr_emu_cg.h), host
// API declarations that let host code compile (kr_emu_host.h; host code is never run, and a host
// API call that is reached anyway fails with its name), and the kernels' entry points
// (KR_EMU_ENTRY). The stand-ins for cuBLAS and CUB (include/) only declare their host APIs too. The runtime's own code and state, and the entry points of
// kr_emu_abi.h, are compiled once into an object that each module links (kr_emu_runtime.cc).
// What it refuses is refused at compile time with a message naming the construct, or at run time
// with a clear error.
#ifndef KR_CUDA_SHIM_H
#define KR_CUDA_SHIM_H

#include <math.h>  // the libstdc++ wrapper: float overloads of sqrt, exp, … in the global namespace
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "kr_emu_abi.h"

// ---- Compiler identity and qualifiers ---------------------------------------------------------------
// The emulator stands for the device side of an sm_90 build, so code under __CUDA_ARCH__ is the
// code that runs. __noinline__ is rewritten in the .cu text by krewrite (a macro would break
// libstdc++'s own __attribute__((__noinline__))).
#define KR_CUDA_EMULATOR 1
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH__ 900
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 4
#define __CUDACC_VER_BUILD__ 0
#define CUDART_VERSION 12040
#define __CUDART_API_VERSION 12040

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __inline_hint__
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __cluster_dims__(...)
#define __grid_constant__
#define __constant__
#define __managed__
// Static shared variables go into one section, which the memory checker poisons for every block.
#define __shared__ static __attribute__((section("kr_shared")))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#define __no_return__ __attribute__((noreturn))
#define CUDARTAPI
#define CUDART_CB

// ---- Vector types ---------------------------------------------------------------------------------------
// Sizes and alignments as CUDA declares them, so that shared arrays and structs lay out alike.
#define KR_VEC(T, B, A1, A2, A4)                                                                        \
  struct __attribute__((aligned(A1))) T##1 { B x; };                                                   \
  struct __attribute__((aligned(A2))) T##2 { B x, y; };                                                \
  struct T##3 { B x, y, z; };                                                                          \
  struct __attribute__((aligned(A4))) T##4 { B x, y, z, w; };                                          \
  inline T##1 make_##T##1(B x) { return T##1{x}; }                                                     \
  inline T##2 make_##T##2(B x, B y) { return T##2{x, y}; }                                             \
  inline T##3 make_##T##3(B x, B y, B z) { return T##3{x, y, z}; }                                    \
  inline T##4 make_##T##4(B x, B y, B z, B w) { return T##4{x, y, z, w}; }

KR_VEC(char, signed char, 1, 2, 4)
KR_VEC(uchar, unsigned char, 1, 2, 4)
KR_VEC(short, short, 2, 4, 8)
KR_VEC(ushort, unsigned short, 2, 4, 8)
KR_VEC(int, int, 4, 8, 16)
KR_VEC(uint, unsigned int, 4, 8, 16)
KR_VEC(long, long, 8, 16, 16)
KR_VEC(ulong, unsigned long, 8, 16, 16)
KR_VEC(longlong, long long, 8, 16, 16)
KR_VEC(ulonglong, unsigned long long, 8, 16, 16)
KR_VEC(float, float, 4, 8, 16)
KR_VEC(double, double, 8, 16, 16)
#undef KR_VEC

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// The shim's machinery is not watched by the memory checker (kr_emu_check.h), only the kernels.
#define KR_EMU_NOSAN __attribute__((no_sanitize_thread))

// The shim's runtime (the scheduler, the memory checker, clusters, resident blocks, the inline
// PTX's machinery) is the same in every module, so krewrite compiles it once, in
// kr_emu_runtime.cc (which defines KR_EMU_RUNTIME_TU), into an object that each module links:
//   KR_EMU_RT      a runtime function. In the runtime's translation unit it stays inline, since
//                  that is what g++ -O1 inlines (the checker's hot path relies on it), and `used`
//                  has g++ emit its one out-of-line copy. In the kernel's, its body is there for
//                  inlining only (gnu_inline: no copy of its own), so g++ does not generate the
//                  runtime's code again for every module.
//   KR_EMU_RT_VAR  the runtime's state: defined in the runtime's translation unit, extern in the
//                  kernel's.
//   KR_EMU_RT_OUT  a runtime function that stays a call of its own (it reads its own return
//                  address, is entered through its address, or is kept out of its callers for
//                  size): declared alike in both, defined within #ifdef KR_EMU_RUNTIME_TU in the
//                  runtime's only (g++ will not have gnu_inline and noinline together).
// All are hidden: each module has its own copy of the runtime, and calls into it are direct.
#define KR_EMU_RT_OUT __attribute__((noinline)) KR_EMU_NOSAN __attribute__((visibility("hidden")))
#ifdef KR_EMU_RUNTIME_TU
#define KR_EMU_RT KR_EMU_NOSAN __attribute__((visibility("hidden"), used)) inline
#define KR_EMU_RT_VAR __attribute__((visibility("hidden")))
#else
#define KR_EMU_RT KR_EMU_NOSAN __attribute__((visibility("hidden"))) extern inline __attribute__((gnu_inline))
#define KR_EMU_RT_VAR extern __attribute__((visibility("hidden")))
#endif

#include "kr_emu_sched.h"
#include "kr_emu_check.h"
#include "kr_emu_cluster.h"
#include "kr_emu_resident.h"
#include "kr_emu_intrin.h"
#include "kr_emu_half.h"
#include "kr_emu_wmma.h"
#include "kr_emu_ptx.h"
#include "kr_emu_cg.h"
#include "kr_emu_host.h"

// ---- Entry points ------------------------------------------------------------------------------------------

namespace kr_emu {

// extern __shared__ T name[] becomes `T (*const &name) = kr_emu::dyn_smem<decltype(name)>()` in
// the emulator view: a reference to this launch's dynamic shared memory pointer.
template <class R>
inline R dyn_smem() {
  return *reinterpret_cast<std::remove_reference_t<R> *>(&S.dyn);
}

template <class... P, size_t... I>
inline void invoke_(void (*f)(P...), void **a, std::index_sequence<I...>) {
  f(*static_cast<std::remove_cv_t<std::remove_reference_t<P>> *>(a[I])...);
}

// Calls kernel `f` with its arguments read from a[i] (as cuLaunchKernel takes them).
template <class... P>
inline void invoke(void (*f)(P...), void **a) {
  invoke_(f, a, std::index_sequence_for<P...>{});
}

template <class T>
constexpr size_t pointee_size() {
  if constexpr (std::is_pointer_v<T>) {
    using E = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_void_v<E> || std::is_function_v<E>) return 1;
    else return sizeof(E);
  } else {
    return 0;
  }
}

template <class... P>
inline size_t signature(void (*)(P...), size_t *sizes, size_t *pointee, size_t cap) {
  const size_t s[] = {sizeof(P)..., 0};
  const size_t p[] = {pointee_size<P>()..., 0};
  for (size_t i = 0; i < sizeof...(P) && i < cap; i++) {
    sizes[i] = s[i];
    pointee[i] = p[i];
  }
  return sizeof...(P);
}

inline uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace kr_emu

#define KR_EMU_EXPORT extern "C" __attribute__((visibility("default")))

// One per kernel, appended by krewrite after the .cu text: kr_entry_<i> and kr_entry_<i>_sig.
#define KR_EMU_ENTRY(i, ...)                                                                       \
  static const auto kr_kernel_##i = __VA_ARGS__;                                                   \
  KR_EMU_EXPORT void kr_entry_##i(void **a) { kr_emu::invoke(kr_kernel_##i, a); }                   \
  KR_EMU_EXPORT size_t kr_entry_##i##_sig(size_t *sizes, size_t *pointee, size_t cap) {             \
    return kr_emu::signature(kr_kernel_##i, sizes, pointee, cap);                                   \
  }

// For a kernel compiled with __cluster_dims__(X, Y, Z): its cluster shape, kr_entry_<i>_cluster.
#define KR_EMU_CLUSTER(i, ...)                                                                     \
  KR_EMU_EXPORT void kr_entry_##i##_cluster(uint32_t *d) {                                         \
    const uint32_t v[] = {__VA_ARGS__, 1, 1};                                                      \
    d[0] = v[0], d[1] = v[1], d[2] = v[2];                                                         \
  }

#include "kr_emu_entry.h"

// These two are the kernel's translation unit's, not the runtime object's: a .cu that defines its
// own gets g++'s redefinition error at its line rather than the linker's.
#ifndef KR_EMU_RUNTIME_TU
// Kernel printf: written through, up to the GPU's FIFO size per launch; what passes it is
// dropped and reported (printf_cut), as the device would drop it. (-fno-builtin-printf keeps g++
// from turning calls into puts or putchar, which would bypass this.)
extern "C" KR_EMU_NOSAN int printf(const char *fmt, ...) {
  using kr_emu::CK;
  char small[512];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(ap2);
    return n;
  }
  char *text = small;
  if ((size_t)n >= sizeof small) {
    text = static_cast<char *>(malloc((size_t)n + 1));
    if (text) vsnprintf(text, (size_t)n + 1, fmt, ap2);
  }
  va_end(ap2);
  size_t room = CK.printf_bytes < KR_EMU_PRINTF_FIFO ? KR_EMU_PRINTF_FIFO - CK.printf_bytes : 0;
  size_t put = text ? ((size_t)n < room ? (size_t)n : room) : 0;
  if (put < (size_t)n) CK.printf_cut = true;
  if (put) fwrite(text, 1, put, stdout);
  CK.printf_bytes += put;
  if (text != small) free(text);
  return n;
}

// assert() in a kernel: a clear error naming the expression instead of abort().
extern "C" __attribute__((visibility("hidden"), noreturn)) void __assert_fail(
    const char *expr, const char *file, unsigned int line, const char *fn) noexcept {
  kr_emu::fail("failed the assertion '%s' at %s:%u", expr, file, line);
}
#endif

#endif
