/* runtime/emu/kr_emu_abi.h: the calls between krewrite (runtime/emu.c, C) and an emulator module
 * (a .cu built against kr_cuda_shim.h, C++). Both sides include this one file: krewrite from the
 * source tree, the module from the copy embedded in krewrite and written into the build cache, so
 * the two always agree (a module is cached under a hash that covers this file).
 *
 * A module exports, with C linkage:
 *   int    kr_emu_abi(void);                          KR_EMU_ABI
 *   int    kr_emu_launch(const KrEmuModLaunch *, KrEmuModResult *);   0: completed
 *   void   kr_emu_where(KrEmuModWhere *);             async-signal-safe snapshot, for crash reports
 *   void   kr_entry_<i>(void **args);                 the i-th kernel, called once per thread
 *   size_t kr_entry_<i>_sig(size_t *sizes, size_t *pointee, size_t cap);
 *            the parameter count; fills sizeof each parameter and, for pointers, sizeof *p
 *            (1 for void *, 0 for a non-pointer) */
#ifndef KR_EMU_ABI_H
#define KR_EMU_ABI_H

#include <stddef.h>
#include <stdint.h>

#define KR_EMU_ABI 4

/* The largest dynamic shared memory a launch may ask for: an H100/H200 block's opt-in maximum. */
#define KR_EMU_MAX_DYN_SMEM (227u * 1024u)

typedef struct KrEmuModLaunch {
  void (*entry)(void **args);
  void **args;
  uint32_t grid[3], block[3];
  size_t shmem;
  uint64_t seed;
  int shuffle;
  const uint64_t *blocks;  /* run only these blocks (linear: x + gx*(y + gy*z)), in this order; */
  uint64_t nblocks;        /* NULL: every block of the grid */
} KrEmuModLaunch;

/* Why a launch stopped early: a one-line message (no kernel name; krewrite adds it). */
typedef struct KrEmuModResult {
  char message[1024];
} KrEmuModResult;

/* Where the module is now, read from a signal handler after a fault. */
typedef struct KrEmuModWhere {
  int in_kernel;                 /* a thread of a block was running */
  uint32_t block[3], thread[3];
  uintptr_t dyn_lo, dyn_hi;      /* this launch's dynamic shared memory [lo, hi) */
  uintptr_t dyn_guard_hi;        /* end of the guard page above it */
  uintptr_t stack_guard_lo, stack_guard_hi; /* the running thread's stack guard page */
  uint32_t stack_bytes;
} KrEmuModWhere;

#endif
