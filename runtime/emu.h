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

#include "base/kr.h"

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
 * the inline PTX the emulator runs (mma.sync, ldmatrix, cvt.rna.tf32.f32) turned into calls of
 * the shim and any other refused with a located error. g++ errors come back as diagnostics
 * located in the .cu file where g++ names a line of it, else as notes. Libraries are cached under
 * sha256(view + kernels + shim + compiler version + flags) in cache_dir (NULL:
 * $XDG_CACHE_HOME/krewrite/emu, else ~/.cache/krewrite/emu), written under temporary names and
 * renamed, so concurrent builds are safe. The shim's runtime is compiled once per shim, compiler
 * and flags into an object that each library links, next to the shim's headers precompiled (g++),
 * in the cache's shim-<hash>-<key> folder. */
KrStatus kr_emu_build(const char *path, const char *text, size_t len, const char *const *kernels,
                      size_t nkernels, const char *cache_dir, KrEmuModule **out, KrDiags *diags);
/* The same, built the way the source is (KrBuildFlags: its folder for quoted includes, in place of
 * the path's; -I folders after the stand-in CUDA headers; -D defines; the front end's view with the
 * defines), all part of the cache key. flags may be NULL. */
KrStatus kr_emu_build_with(const char *path, const char *text, size_t len, const char *const *kernels, size_t nkernels,
                           const KrBuildFlags *flags, const char *cache_dir, KrEmuModule **out, KrDiags *diags);
/* The same for a spec's host entry point (docs/problems.md, "Host entry points"): the view keeps
 * `entry`'s body and those of the host functions it calls, and runs each launch in them through the
 * child; their kernels are exported after `kernels` (which may be none). kr_emu_run_entry runs it. */
KrStatus kr_emu_build_entry(const char *path, const char *text, size_t len, const char *const *kernels, size_t nkernels,
                            const char *entry, const KrBuildFlags *flags, const char *cache_dir, KrEmuModule **out,
                            KrDiags *diags);
void kr_emu_module_free(KrEmuModule *m);
/* True when the module's .cu synchronises through shared memory or atomics (what makes the race
 * check on global memory the default, KrEmuRaceCheck). */
bool kr_emu_module_syncs(const KrEmuModule *m);

/* The parameter count and sizeof each parameter of an exported kernel; KR_ERR if the module
 * exports no such kernel. `sizes` points into the module. */
KrStatus kr_emu_kernel_params(const KrEmuModule *m, const char *kernel, size_t *nparams,
                              const size_t **sizes);

/* Device buffers for the emulator: MAP_SHARED anonymous memory (a child process's writes are
 * seen by the parent), 16-byte aligned, with 64 KiB of PROT_NONE guard pages on both sides. The
 * memory checker of a launch (kr_emu_run) refuses any access outside [p, p + bytes), to the
 * byte; the guard pages and a canary in the slack bytes up to 16-byte rounding (checked after
 * every launch) stay as a second line for what the checker does not see. `name` is kept for
 * messages. NULL when out of memory. Safe to call from several threads. */
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
  const uint64_t *blocks;  /* NULL: every block; else only these (linear indices x + gx*(y + gy*z), */
  size_t nblocks;          /* each below the grid's block count), to check a sample of a big grid */
} KrEmuLaunch;

/* The race check of a launch (the bounds and shared-memory checks are always on). AUTO: races on
 * shared memory always, on global memory when the .cu uses shared memory or atomics (the kernels
 * that synchronise: a global check can triple the time of a kernel that streams global memory),
 * unless the environment variable KR_EMU_RACE_CHECK says "on" or "off" (verify --race-check). */
typedef enum KrEmuRaceCheck { KR_EMU_RACE_AUTO, KR_EMU_RACE_ON, KR_EMU_RACE_OFF } KrEmuRaceCheck;

typedef struct KrEmuOptions {
  uint64_t seed;           /* for the thread order when shuffle is on */
  bool shuffle;            /* run the threads of a block in a random order between barriers */
  double timeout_s;        /* per launch; 0: 20 s */
  bool *timed_out;         /* out, when not NULL: whether a launch was stopped at the time limit
                            * (a caller may then skip what would hang again) */
  KrEmuRaceCheck race_check;
} KrEmuOptions;

/* One round of launches: what one use of a loaded module runs. */
typedef struct KrEmuRound {
  const KrEmuLaunch *launches;
  size_t n;
} KrEmuRound;

/* Runs the launches in order in one forked child process, each within the time limit; `o` may
 * be NULL (defaults). KR_OK when all completed. Otherwise KR_ERR with one error naming the kernel
 * and the cause, e.g. "kernel 'saxpy' wrote out of bounds: buffer 'y' element 1000 (of 1000)
 * (block (3,0,0), thread (232,0,0))", "kernel 'k' did not finish within 20 s (a hang, or too
 * much work for the emulator)", "kernel 'k' deadlocked in block (0,0,0): threads 0-15 wait at
 * __syncthreads while threads 16-63 have exited", "kernel 'k' called __trap() (…)", "kernel 'k'
 * failed the assertion 'i < n' at k.cu:12 (…)", "kernel 'k' crashed (SIGSEGV at address 0x10)",
 * "kernel 'k' tried to run a program (execve '/bin/sh') at k.cu:14 (…)" (the sandbox stopped it).
 * The memory checker's findings carry the places (file:line of the .cu): "kernel 'k' read out
 * of bounds: buffer 'x' element 1000 (of 1000) at k.cu:12 (block (3,0,0), thread (232,0,0))",
 * "kernel 'k' read shared memory that no thread of block (0,0,0) wrote: shared memory 'tile'
 * byte 64 at k.cu:20 (thread (5,0,0))", "kernel 'k' has a data race on buffer 'sum' element 0:
 * thread (0,0,0) of block (0,0,0) wrote at k.cu:9, thread (1,0,0) of block (0,0,0) read at
 * k.cu:9 with no barrier or __syncwarp between". A launch whose argument count, dimensions or
 * shared memory are wrong is refused before anything runs. Kernel printf output goes to stderr,
 * up to the GPU's FIFO size (1 MiB) per launch: past it, output is dropped, with a warning. */
KrStatus kr_emu_run(KrEmuModule *m, const KrEmuLaunch *launches, size_t n, const KrEmuOptions *o,
                    KrDiags *diags);
/* Runs the rounds in order in ONE forked child, so that what a kernel leaves in module state
 * (a __device__ or static variable) in one round is what the next round finds, as on a GPU where
 * a module stays loaded between calls. Each round runs on its own buffers (allocated before the
 * call, as for kr_emu_run). Errors are kr_emu_run's, with "(run R of N)" after the kernel's name
 * when the failing launch is not in the first round. kr_emu_run is one round. */
KrStatus kr_emu_run_rounds(KrEmuModule *m, const KrEmuRound *rounds, size_t nrounds,
                           const KrEmuOptions *o, KrDiags *diags);

/* One call of a module's host entry point: args[i] points to the value of its i-th parameter. */
typedef struct KrEmuEntryCall {
  void **args;
  size_t nargs;
} KrEmuEntryCall;

/* Calls the entry point of a module built by kr_emu_build_entry once per call, in order, in ONE
 * forked child (the rounds of kr_emu_run_rounds: call r on its own buffers). Each launch the entry
 * makes runs as a spec launch does (the time limit per launch, the seeds, the shuffle, the memory
 * checker over every buffer allocated before the call and every cudaMalloc of the entry); the first
 * that fails stops the child, with kr_emu_run's error and where the entry launched it: "kernel
 * 'step' (launched from launch_x at k.cu:31) wrote out of bounds: …". A fault in the entry's own
 * code is "entry 'launch_x' crashed (…)". Errors of the call's own are "(run R of N)" as there. */
KrStatus kr_emu_run_entry(KrEmuModule *m, const KrEmuEntryCall *calls, size_t ncalls, const KrEmuOptions *o,
                          KrDiags *diags);

#endif
