// runtime/emu/kr_emu_runtime.cc: the runtime of an emulator module, the part that is the same in
// every module. krewrite compiles this file once per shim, compiler and flags into an object kept
// in the cache next to the shim (runtime/emu.c) and links that object into each module, so each
// module still has its own copy of the state and code below; only g++'s work is shared.
//
// Here, with KR_EMU_RUNTIME_TU defined, the shim's runtime functions (KR_EMU_RT: the scheduler,
// the memory checker, clusters, resident blocks, the inline PTX's machinery) get their one
// out-of-line definition and its state (KR_EMU_RT_VAR: S, CK, G, RS, threadIdx, …) its
// definition; the kernel's translation unit sees the same bodies for inlining only, and the
// state as extern declarations (kr_cuda_shim.h). What is defined only here: the context switch
// (kr_emu_sched.h), the entry points krewrite calls (kr_emu_abi.h), and the memory checker's
// instrumentation callbacks.
#define KR_EMU_RUNTIME_TU 1
#include "kr_cuda_shim.h"

// ---- Entry points ------------------------------------------------------------------------------------------

KR_EMU_EXPORT int kr_emu_abi(void) { return KR_EMU_ABI; }

KR_EMU_EXPORT KR_EMU_NOSAN void kr_emu_where(KrEmuModWhere *w) {
  using kr_emu::S;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  w->in_kernel = S.cur != nullptr;
  w->block[0] = blockIdx.x, w->block[1] = blockIdx.y, w->block[2] = blockIdx.z;
  if (S.cur) {
    w->thread[0] = S.cur->tid.x, w->thread[1] = S.cur->tid.y, w->thread[2] = S.cur->tid.z;
    w->stack_guard_lo = (uintptr_t)S.cur->stack - page;
    w->stack_guard_hi = (uintptr_t)S.cur->stack;
  }
  w->dyn_lo = (uintptr_t)S.dyn;
  w->dyn_hi = (uintptr_t)S.dyn + S.dyn_bytes;
  w->dyn_guard_hi = S.dyn_region ? (uintptr_t)S.dyn_region + S.dyn_region_bytes + page : 0;
  w->stack_bytes = kr_emu::kStackBytes;
}

// The slots of the symbols the .cu uses but does not define (kr_emu_abi.h): inaccessible from
// before the .cu's global constructors run (a priority below theirs), so that any use faults
// there. The linker defines the bounds when the module has the section; they are null otherwise.
extern "C" char __start_kr_missing[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_kr_missing[] __attribute__((weak, visibility("hidden")));
__attribute__((constructor(101))) KR_EMU_NOSAN static void protect_missing() {
  if (!__start_kr_missing || __stop_kr_missing <= __start_kr_missing) return;
  if (mprotect(__start_kr_missing, (size_t)(__stop_kr_missing - __start_kr_missing), PROT_NONE) != 0) {
    // A read of a missing variable would give zeros: better no run than a wrong one.
    fputs("krewrite emulator: cannot protect the slots of the undefined symbols\n", stderr);
    abort();
  }
}

namespace kr_emu {

// The launch's cluster shape into G; why it cannot run, or NULL.
KR_EMU_NOSAN static inline const char *cluster_of(const KrEmuModLaunch *L) {
  static char why[160];
  G.size = 1;
  G.nsplit = 0;
  uint32_t d[3];
  for (int i = 0; i < 3; i++) d[i] = L->cluster[i] ? L->cluster[i] : 1;
  uint64_t size = (uint64_t)d[0] * d[1] * d[2];
  if (size > kMaxCluster) {
    snprintf(why, sizeof why, "a cluster of %ux%ux%u blocks is larger than %u", d[0], d[1], d[2], kMaxCluster);
    return why;
  }
  for (int i = 0; i < 3; i++)
    if (L->grid[i] % d[i]) {
      snprintf(why, sizeof why, "the grid (%u,%u,%u) is not a whole number of clusters of (%u,%u,%u) blocks",
               L->grid[0], L->grid[1], L->grid[2], d[0], d[1], d[2]);
      return why;
    }
  memcpy(G.dim, d, sizeof d);
  G.size = (uint32_t)size;
  return nullptr;
}

// A cluster launch: each cluster of the grid in order, or each cluster holding a sampled block,
// once.
KR_EMU_NOSAN static inline bool run_clusters(const KrEmuModLaunch *L) {
  uint32_t gx = L->grid[0], gy = L->grid[1];
  auto origin_of = [&](uint64_t b) {
    uint32_t x = (uint32_t)(b % gx), y = (uint32_t)(b / gx % gy), z = (uint32_t)(b / gx / gy);
    return uint3{x - x % G.dim[0], y - y % G.dim[1], z - z % G.dim[2]};
  };
  if (L->blocks) {
    for (uint64_t k = 0; k < L->nblocks; k++) {
      uint3 o = origin_of(L->blocks[k]);
      bool seen = false;
      for (uint64_t j = 0; j < k && !seen; j++) {
        uint3 p = origin_of(L->blocks[j]);
        seen = p.x == o.x && p.y == o.y && p.z == o.z;
      }
      if (!seen && !run_cluster(o)) return false;
    }
    return true;
  }
  for (uint32_t z = 0; z < L->grid[2]; z += G.dim[2])
    for (uint32_t y = 0; y < L->grid[1]; y += G.dim[1])
      for (uint32_t x = 0; x < L->grid[0]; x += G.dim[0])
        if (!run_cluster(uint3{x, y, z})) return false;
  return true;
}

// Block b of the grid (a linear index, x fastest) as blockIdx.
KR_EMU_NOSAN static inline uint3 grid_index(uint64_t b) {
  uint64_t gx = gridDim.x, gy = gridDim.y;
  return uint3{(uint32_t)(b % gx), (uint32_t)(b / gx % gy), (uint32_t)(b / gx / gy)};
}

}  // namespace kr_emu

KR_EMU_EXPORT KR_EMU_NOSAN int kr_emu_launch(const KrEmuModLaunch *L, KrEmuModResult *R) {
  using namespace kr_emu;
  S.result = R;
  S.failed = false;
  memset(R, 0, sizeof *R);
  uint32_t n = L->block[0] * L->block[1] * L->block[2];
  if (n == 0 || n > kMaxThreads) {
    snprintf(R->message, sizeof R->message, "a block of %u threads is outside 1..%u", n, kMaxThreads);
    return 1;
  }
  if (L->shmem > KR_EMU_MAX_DYN_SMEM) {
    snprintf(R->message, sizeof R->message, "%zu bytes of dynamic shared memory exceed the %u allowed",
             L->shmem, KR_EMU_MAX_DYN_SMEM);
    return 1;
  }
  if (const char *why = cluster_of(L)) {
    snprintf(R->message, sizeof R->message, "%s", why);
    return 1;
  }
  if (!pools_ready() || !stacks_ready(n * G.size) || (G.size > 1 && !cluster_ready(G.size, n))) {
    G.size = 1;
    snprintf(R->message, sizeof R->message, "out of memory for %u thread stacks", n);
    return 1;
  }
  Fiber *pool = S.fibers;   // a cluster launch runs its blocks' fibers from the cluster's pool
  S.n = n;
  S.entry = L->entry;
  S.args = L->args;
  S.shuffle = L->shuffle != 0;
  S.rng = splitmix(L->seed) | 1;
  // The dynamic shared memory ends near the guard page, its start 1024-byte aligned as a GPU's is: an
  // `extern __shared__ __align__(1024)` array's address bits name its 128-byte swizzle rows (wgmma,
  // kr_emu_ptx.h), whatever size the launch gives it.
  size_t rounded = (L->shmem + 1023) & ~(size_t)1023;
  S.dyn = S.dyn_region + S.dyn_region_bytes - rounded;
  S.dyn_bytes = L->shmem;
  blockDim = dim3(L->block[0], L->block[1], L->block[2]);
  gridDim = dim3(L->grid[0], L->grid[1], L->grid[2]);
  if (!check_begin(L)) {
    snprintf(R->message, sizeof R->message, "out of memory for the memory checker");
    check_end();
    return 1;
  }
  CK.on = true;
  int failed = G.size > 1 ? !run_clusters(L) : 0;
  for (uint64_t k = 0; G.size == 1 && L->blocks && k < L->nblocks && !failed; k++) {  // a sample of the grid's blocks
    blockIdx = grid_index(L->blocks[k]);
    BlockEnd end = run_block();
    if (end == B_NAPS) {
      report_deadlock();
      Text t{S.result->message, sizeof(KrEmuModResult::message), strlen(S.result->message)};
      t.put(" (its threads wait on other blocks through memory, which a sampled run does not run)");
    }
    failed = end != B_DONE;
  }
  uint64_t total = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2];
  for (uint64_t b = 0; G.size == 1 && !L->blocks && b < total && !failed;) {   // the whole grid, in order
    blockIdx = grid_index(b++);
    BlockEnd end = run_block();
    failed = end == B_FAILED || (end == B_NAPS && !run_resident(&b, total, grid_index));
  }
  check_end();
  G.size = 1;
  S.fibers = pool;
  R->printf_cut = CK.printf_cut;
  return failed;
}

// ---- The instrumentation's callbacks ---------------------------------------------------------------

#define KR_EMU_CB extern "C" KR_EMU_NOSAN __attribute__((visibility("hidden")))
#define KR_EMU_RW(n)                                                                                 \
  KR_EMU_CB void __tsan_read##n(void *p) { kr_emu::access((uintptr_t)p, n, 0, __builtin_return_address(0)); } \
  KR_EMU_CB void __tsan_write##n(void *p) {                                                          \
    kr_emu::access((uintptr_t)p, n, KR_EMU_ACC_WRITE, __builtin_return_address(0));                  \
  }                                                                                                  \
  KR_EMU_CB void __tsan_unaligned_read##n(void *p) {                                                 \
    kr_emu::access((uintptr_t)p, n, 0, __builtin_return_address(0));                                 \
  }                                                                                                  \
  KR_EMU_CB void __tsan_unaligned_write##n(void *p) {                                                \
    kr_emu::access((uintptr_t)p, n, KR_EMU_ACC_WRITE, __builtin_return_address(0));                  \
  }                                                                                                  \
  KR_EMU_CB void __tsan_volatile_read##n(void *p) {                                                  \
    kr_emu::access((uintptr_t)p, n, 0, __builtin_return_address(0));                                 \
  }                                                                                                  \
  KR_EMU_CB void __tsan_volatile_write##n(void *p) {                                                 \
    kr_emu::access((uintptr_t)p, n, KR_EMU_ACC_WRITE, __builtin_return_address(0));                  \
  }
KR_EMU_RW(1)
KR_EMU_RW(2)
KR_EMU_RW(4)
KR_EMU_RW(8)
KR_EMU_RW(16)
#undef KR_EMU_RW

// -fsanitize=alignment's report (GCC's layout of its data): a load (kind 0) or a store (1) through
// a pointer not aligned for its type; the other kinds (member access, reference binding) move
// nothing by themselves, and the GPU does a member's access at the member's own alignment.
struct KrUbsanMismatch {
  const char *file;
  uint32_t line, column;
  const void *type;
  unsigned char log_alignment, kind;
};
KR_EMU_CB void __ubsan_handle_type_mismatch_v1(KrUbsanMismatch *d, uintptr_t p) {
  if (p && d->kind <= 1 && (p & ((uintptr_t(1) << d->log_alignment) - 1)))
    kr_emu::misaligned(p, size_t(1) << d->log_alignment, d->kind ? KR_EMU_ACC_WRITE : 0, __builtin_return_address(0));
}
KR_EMU_CB void __ubsan_handle_type_mismatch_v1_abort(KrUbsanMismatch *d, uintptr_t p) {
  __ubsan_handle_type_mismatch_v1(d, p);
}

KR_EMU_CB void __tsan_read_range(void *p, unsigned long n) {
  kr_emu::access((uintptr_t)p, n, 0, __builtin_return_address(0));
}
KR_EMU_CB void __tsan_write_range(void *p, unsigned long n) {
  kr_emu::access((uintptr_t)p, n, KR_EMU_ACC_WRITE, __builtin_return_address(0));
}
// Module constructor, function entry and exit (off: --param tsan-instrument-func-entry-exit=0,
// defined for compilers that emit them anyway), virtual-table updates: nothing to do.
KR_EMU_CB void __tsan_init(void) {}
KR_EMU_CB void __tsan_func_entry(void *) {}
KR_EMU_CB void __tsan_func_exit(void) {}
KR_EMU_CB void __tsan_vptr_update(void **, void *) {}
KR_EMU_CB void __tsan_vptr_read(void **) {}

// The __atomic builtins of kernel (or library) code, 1 to 8 bytes (16-byte ones are left out: such
// a module gets a slot for the symbol, and a kernel that reaches one fails, naming it): done plainly (fibers never interleave inside one)
// and told to the checker as atomic.
#define KR_EMU_TSAN_ATOMICS(n, T)                                                                      \
  KR_EMU_CB T __tsan_atomic##n##_load(const volatile T *a, int) {                                    \
    kr_emu::check_atomic((const void *)a, sizeof(T), __builtin_return_address(0));                   \
    return *a;                                                                                         \
  }                                                                                                    \
  KR_EMU_CB void __tsan_atomic##n##_store(volatile T *a, T v, int) {                                 \
    kr_emu::check_atomic((const void *)a, sizeof(T), __builtin_return_address(0));                   \
    *a = v;                                                                                            \
  }                                                                                                    \
  KR_EMU_CB T __tsan_atomic##n##_exchange(volatile T *a, T v, int) {                                 \
    kr_emu::check_atomic((const void *)a, sizeof(T), __builtin_return_address(0));                   \
    T o = *a;                                                                                          \
    *a = v;                                                                                            \
    return o;                                                                                          \
  }                                                                                                    \
  KR_EMU_TSAN_RMW(n, T, fetch_add, o + v)                                                              \
  KR_EMU_TSAN_RMW(n, T, fetch_sub, o - v)                                                              \
  KR_EMU_TSAN_RMW(n, T, fetch_and, o & v)                                                              \
  KR_EMU_TSAN_RMW(n, T, fetch_or, o | v)                                                               \
  KR_EMU_TSAN_RMW(n, T, fetch_xor, o ^ v)                                                              \
  KR_EMU_TSAN_RMW(n, T, fetch_nand, (T) ~(o & v))                                                      \
  KR_EMU_CB int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int, int) {     \
    kr_emu::check_atomic((const void *)a, sizeof(T), __builtin_return_address(0));                   \
    if (*a == *c) {                                                                                    \
      *a = v;                                                                                          \
      return 1;                                                                                        \
    }                                                                                                  \
    *c = *a;                                                                                           \
    return 0;                                                                                          \
  }                                                                                                    \
  KR_EMU_CB int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int, int) {       \
    kr_emu::check_atomic((const void *)a, sizeof(T), __builtin_return_address(0));                   \
    if (*a == *c) {                                                                                    \
      *a = v;                                                                                          \
      return 1;                                                                                        \
    }                                                                                                  \
    *c = *a;                                                                                           \
    return 0;                                                                                          \
  }                                                                                                    \
  KR_EMU_CB T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int, int) {           \
    kr_emu::check_atomic((const void *)a, sizeof(T), __builtin_return_address(0));                   \
    T o = *a;                                                                                          \
    if (o == c) *a = v;                                                                                \
    return o;                                                                                          \
  }
#define KR_EMU_TSAN_RMW(n, T, op, expr)                                                                \
  KR_EMU_CB T __tsan_atomic##n##_##op(volatile T *a, T v, int) {                                     \
    kr_emu::check_atomic((const void *)a, sizeof(T), __builtin_return_address(0));                   \
    T o = *a;                                                                                          \
    *a = (T)(expr);                                                                                    \
    return o;                                                                                          \
  }
KR_EMU_TSAN_ATOMICS(8, char)
KR_EMU_TSAN_ATOMICS(16, short)
KR_EMU_TSAN_ATOMICS(32, int)
KR_EMU_TSAN_ATOMICS(64, long)
#undef KR_EMU_TSAN_ATOMICS
#undef KR_EMU_TSAN_RMW
KR_EMU_CB void __tsan_atomic_thread_fence(int) { kr_emu::check_fence(); }
KR_EMU_CB void __tsan_atomic_signal_fence(int) {}
#undef KR_EMU_CB
