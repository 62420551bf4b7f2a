/* runtime/emu.h: the CPU emulator backend (DESIGN.md, "Problem specs, verification, timing": cpu).
 * A kernel's .cu is compiled by the host C++ compiler against a shim header (runtime/emu/, embedded
 * into krewrite and written into the build cache) and loaded with dlopen, never in krewrite's own
 * process: a sandboxed probe child learns the kernels' signatures, and launches run in a forked,
 * sandboxed child (runtime/sandbox.h), so that a crash, a hang, a deadlock or a forbidden system
 * call in a kernel (or in a global constructor) is an error message, never the end of krewrite. Threads of a block run as fibers; see runtime/emu/kr_emu_sched.h for
 * the model (barriers, warp rendezvous, shuffled order) and runtime/emu/kr_cuda_shim.h for what
 * CUDA the emulator accepts.
 *
 * Environment: KR_EMU_CXX names the compiler (default g++). */
#ifndef KR_EMU_H
#define KR_EMU_H

#include "frontend/kr.h"

typedef struct KrDim3 {
  uint32_t x, y, z;
} KrDim3;

/* A built emulator module: the library in the cache plus its kernels' signatures. Owned by the
 * caller; kr_emu_module_free frees it. */
typedef struct KrEmuModule KrEmuModule;

/* Builds `text` (a .cu file; `path` names it in messages and is where its quoted #includes are
 * looked up) for the emulator, exporting an entry for each name in `kernels` as written in a
 * launch: "saxpy", "ns::k", "tk<float, 128>" (repeats are fine). The emulator view of the source
 * is made first: launches blanked, extern __shared__ arrays mapped to dynamic shared memory,
 * inline PTX refused with a located error. g++ errors come back as diagnostics located in the .cu
 * file where g++ names a line of it, else as notes. Libraries are cached under
 * sha256(view + kernels + shim + compiler version + flags) in cache_dir (NULL:
 * $XDG_CACHE_HOME/krewrite/emu, else ~/.cache/krewrite/emu), written under temporary names and
 * renamed, so concurrent builds are safe. */
KrStatus kr_emu_build(const char *path, const char *text, size_t len, const char *const *kernels,
                      size_t nkernels, const char *cache_dir, KrEmuModule **out, KrDiags *diags);
void kr_emu_module_free(KrEmuModule *m);

/* The parameter count and sizeof each parameter of an exported kernel; KR_ERR if the module
 * exports no such kernel. `sizes` points into the module. */
KrStatus kr_emu_kernel_params(const KrEmuModule *m, const char *kernel, size_t *nparams,
                              const size_t **sizes);

/* Device buffers for the emulator: MAP_SHARED anonymous memory (a child process's writes are
 * seen by the parent), 16-byte aligned, with 64 KiB of PROT_NONE guard pages on both sides. The
 * buffer's end lies against the upper guard when its size is a multiple of 16 bytes; otherwise
 * the few bytes up to the guard, and the bytes below the start, hold a canary that is checked
 * after every launch, so an overrun by one element is still reported (a write at once by the
 * fault, or after the launch by the canary; a read of those slack bytes goes unseen). `name` is
 * kept for messages. NULL when out of memory. Safe to call from several threads. */
void *kr_emu_alloc(size_t bytes, const char *name);
/* The same, telling the element size, so messages count elements even when a kernel reaches
 * the buffer through a pointer of another type. */
void *kr_emu_alloc_elems(size_t count, size_t elem_size, const char *name);
void kr_emu_free(void *p);

typedef struct KrEmuLaunch {
  const char *kernel;      /* one of the names given to kr_emu_build */
  KrDim3 grid, block;
  size_t shmem;            /* dynamic shared memory bytes */
  void **args;             /* as cuLaunchKernel: args[i] points to the i-th argument's value */
  size_t nargs;
} KrEmuLaunch;

typedef struct KrEmuOptions {
  uint64_t seed;           /* for the thread order when shuffle is on */
  bool shuffle;            /* run the threads of a block in a random order between barriers */
  double timeout_s;        /* per launch; 0: 20 s */
} KrEmuOptions;

/* Runs the launches in order in one forked child process, each within the time limit; `o` may
 * be NULL (defaults). KR_OK when all completed. Otherwise KR_ERR with one error naming the kernel
 * and the cause, e.g. "kernel 'saxpy' wrote out of bounds: buffer 'y' element 1000 (of 1000)
 * (block (3,0,0), thread (232,0,0))", "kernel 'k' did not finish within 20 s (a hang, or too
 * much work for the emulator)", "kernel 'k' deadlocked in block (0,0,0): threads 0-15 wait at
 * __syncthreads while threads 16-63 have exited", "kernel 'k' called __trap() (…)", "kernel 'k'
 * failed the assertion 'i < n' at k.cu:12 (…)", "kernel 'k' crashed (SIGSEGV at address 0x10)",
 * "kernel 'k' tried to run a program (execve '/bin/sh') at k.cu:14 (…)".
 * A launch whose argument count, dimensions or shared memory are wrong is refused before
 * anything runs. Kernel printf output goes to stderr. */
KrStatus kr_emu_run(KrEmuModule *m, const KrEmuLaunch *launches, size_t n, const KrEmuOptions *o,
                    KrDiags *diags);

#endif
