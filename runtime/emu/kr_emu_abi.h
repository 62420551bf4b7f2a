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
 *            (1 for void *, 0 for a non-pointer)
 * and, built with a host entry point (kr_emu_build_entry, docs/problems.md "Host entry points"):
 *   void   kr_emu_call_entry(void **args);            the entry function, parameter i read from args[i]
 *   KrEmuHostHooks kr_emu_host_hooks;                 set by the child before the call: the entry's
 *            launches and cudaMalloc calls go through it */
#ifndef KR_EMU_ABI_H
#define KR_EMU_ABI_H

#include <stddef.h>
#include <stdint.h>

#define KR_EMU_ABI 8

/* The symbols a .cu uses but does not define (a host function of another file or library, a
 * stand-in header's host API): krewrite links each to a slot of KR_EMU_MISSING_SLOT bytes in the
 * section KR_EMU_MISSING_SECTION, aligned to KR_EMU_MISSING_ALIGN (a page on every host), which
 * the module's runtime makes inaccessible when it is loaded, before the .cu's global constructors
 * run. A use of one faults in its slot, and krewrite names the symbol from the module's symbol
 * table (runtime/emu.c builds the slots, runtime/emu_run.c reports the fault). */
#define KR_EMU_MISSING_SECTION "kr_missing"
#define KR_EMU_MISSING_SLOT 4096u
#define KR_EMU_MISSING_ALIGN 65536u

/* The largest dynamic shared memory a launch may ask for: an H100/H200 block's opt-in maximum. */
#define KR_EMU_MAX_DYN_SMEM (227u * 1024u)

/* A live buffer, for the memory checker (kr_emu_check.h): the whole mapping [map_lo, map_hi) is
 * watched and only [base, base + bytes) may be accessed; races are tracked per `granule` bytes
 * (the element size: 1, 2, 4, 8 or 16; anything else counts bytes). */
typedef struct KrEmuModRegion {
  uintptr_t map_lo, map_hi, base;
  uint64_t bytes;
  uint64_t granule;
} KrEmuModRegion;

typedef struct KrEmuModLaunch {
  void (*entry)(void **args);
  void **args;
  uint32_t grid[3], block[3];
  size_t shmem;
  uint64_t seed;
  int shuffle;
  const uint64_t *blocks;  /* run only these blocks (linear: x + gx*(y + gy*z)), in this order; */
  uint64_t nblocks;        /* NULL: every block of the grid */
  uint32_t cluster[3];     /* blocks per cluster (__cluster_dims__); 0 or 1: no clusters */
  int race_check;                 /* KR_EMU_RACES_*: which conflicting accesses are tracked */
  const KrEmuModRegion *regions;  /* the buffers, in the order of krewrite's table */
  size_t nregions;
} KrEmuModLaunch;

/* What a host entry's code calls back into the child for: each k<<<…>>>(…) of the entry (the view
 * rewrites it into kr_emu::host_launch, kr_emu_entry.h) with the kernel's kr_entry_<i>, its
 * arguments packed as kr_entry_<i> reads them and the launch's line in the .cu, and each
 * cudaMalloc (device memory is the host's: a guarded allocation the memory checker knows). The
 * launch hook returns only when the launch completed; a failing one ends the child. */
typedef struct KrEmuHostHooks {
  int (*launch)(void (*entry)(void **), void **args, const uint32_t *grid, const uint32_t *block, size_t shmem,
                int line);
  void *(*alloc)(size_t bytes);
} KrEmuHostHooks;

/* What a finding of the memory checker is. */
enum {
  KR_EMU_FIND_NONE,     /* message says why the launch stopped (deadlock, __trap, assertion) */
  KR_EMU_FIND_BOUNDS,   /* an access outside the buffer or shared memory */
  KR_EMU_FIND_UNINIT,   /* a read of shared memory no thread of the block wrote */
  KR_EMU_FIND_RACE,     /* `now` conflicts with the earlier `then` */
  KR_EMU_FIND_MISALIGNED  /* a load or store at an address not a multiple of its type's alignment (`size`) */
};
enum { KR_EMU_SPACE_GLOBAL, KR_EMU_SPACE_SHARED, KR_EMU_SPACE_DYNAMIC };
enum { KR_EMU_RACES_NONE, KR_EMU_RACES_SHARED, KR_EMU_RACES_ALL };
enum { KR_EMU_ACC_WRITE = 1, KR_EMU_ACC_ATOMIC = 2, KR_EMU_ACC_ASYNC = 4 };

typedef struct KrEmuModAccess {
  uint32_t block[3], thread[3];
  uint64_t pc;      /* offset in the module of the access (0: unknown) */
  int rw;           /* KR_EMU_ACC_* */
} KrEmuModAccess;

/* Why a launch stopped early: a one-line message (no kernel name; krewrite adds it), or a finding
 * of the memory checker that krewrite turns into a message with the places. printf_cut is set,
 * also for a launch that completed, when the kernel's printf output passed KR_EMU_PRINTF_FIFO. */
typedef struct KrEmuModResult {
  char message[1024];
  int kind;                 /* KR_EMU_FIND_* */
  int space;                /* KR_EMU_SPACE_* */
  int64_t region;           /* global: index in the launch's regions */
  int64_t offset;           /* bytes from the start of the buffer or shared memory */
  uint64_t size;            /* of the access */
  uint64_t extent;          /* bytes of the buffer or shared memory */
  uint64_t sym_offset;      /* static shared: the address as a module offset, to find its name */
  char name[64];            /* static shared: the variable's name, when the checker knows it */
  KrEmuModAccess now, then;
  int printf_cut;
} KrEmuModResult;

/* The GPU's printf FIFO (cudaLimitPrintfFifoSize's default): output past it is dropped. */
#define KR_EMU_PRINTF_FIFO (1u << 20)

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
