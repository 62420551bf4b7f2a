/* runtime/cuda.h: the CUDA driver backend (DESIGN.md, "Problem specs, verification, timing":
 * cuda). libcuda.so.1 is opened with dlopen at run time, so krewrite builds and runs on machines
 * without a GPU; a cubin is loaded with cuModuleLoadData and launched with cuLaunchKernel. All
 * GPU work happens in a forked child process, as in the emulator (runtime/emu.h): CUDA is never
 * initialised in krewrite's own process, and a fault, a hang (killed at the time limit) or a
 * crash in the driver is one error message, never the end of krewrite. The child reports to the
 * parent through a pipe; every driver call is checked and its error reported by name, e.g.
 * "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered, in kernel 'conv2d'".
 *
 * Environment: KR_CUDA_LIB names the driver library to open (default libcuda.so.1).
 * The device used is the driver's device 0 (choose another with CUDA_VISIBLE_DEVICES). The child
 * sets CUDA_MODULE_LOADING=EAGER unless it is set, so that a kernel that cannot be loaded is
 * reported when the module is, and lazy loading never falls inside a timed region. */
#ifndef KR_CUDA_H
#define KR_CUDA_H

#include "runtime/emu.h"   /* KrDim3 */

/* A device buffer, mirrored by host memory. `host` must be MAP_SHARED memory (kr_emu_alloc gives
 * it): the child copies every buffer back into it after the run, and only shared memory carries
 * those writes to the parent; other memory is refused before anything runs. `name` is for
 * messages. */
typedef struct KrCudaBuffer {
  const char *name;
  void *host;
  size_t bytes;
} KrCudaBuffer;

/* One launch, as cuLaunchKernel takes it. `kernel` is the name as a launch writes it: "saxpy",
 * "ns::k", "tk<float, 128>". args[i] points to the i-th argument's value. arg_buffer[i] >= 0 says
 * that argument i is a pointer into buffer arg_buffer[i]: *args[i] holds a host address inside
 * that buffer (its start, or any byte up to its end), and the device address at the same offset
 * is passed instead; -1 passes the value as is. arg_buffer may be NULL (no pointers). */
typedef struct KrCudaLaunch {
  const char *kernel;
  KrDim3 grid, block;
  size_t shmem;            /* dynamic shared memory bytes */
  void **args;
  const int *arg_buffer;
  size_t nargs;
} KrCudaLaunch;

/* Says whether a GPU is usable: KR_OK with the device's name (into name[n], may be NULL) and
 * compute capability, else KR_ERR with one error that starts "no GPU: ", e.g. "no GPU:
 * libcuda.so.1 not found (…)", "no GPU: cuInit failed: CUDA_ERROR_NO_DEVICE: no CUDA-capable
 * device is detected". Runs in a child process, so the caller stays free to fork. */
KrStatus kr_cuda_probe(char *name, size_t n, int *cc_major, int *cc_minor, KrDiags *d);

/* The SMs a launch change sizes a grid by (the expression symbol `sms`: passes/persistent.c). On the GPU,
 * those of device 0 as the first successful kr_cuda_probe of this process found (kr_cuda_sms probes once
 * when none has; KR_EMU_SMS if that fails, and the run will say why). On the emulator KR_EMU_SMS: it runs a
 * launch's blocks one after another, as one SM would, and so a persistent kernel's few blocks walk several
 * tiles each at the test sizes. */
#define KR_EMU_SMS 1
int kr_cuda_sms(void);

/* Runs the launches in order in one forked child: loads the cubin (or PTX, NUL-terminated), finds
 * every kernel, allocates every buffer on the device and copies the host contents in, raises the
 * dynamic shared memory limit of a kernel whose launch asks for more than its default (refusing
 * more than the device's opt-in maximum), launches, synchronizes after each launch (so an error
 * names its kernel) and copies EVERY buffer back, so the caller can check that inputs were left
 * alone. Each step (set-up, each launch, the copy back) must end within timeout_s (0: 60 s), or
 * the child is killed. KR_OK when all completed; else KR_ERR with one error naming the kernel
 * and the cause. A launch whose dimensions, arguments or buffers are wrong is refused before
 * anything runs. Kernel printf output goes to stderr. */
KrStatus kr_cuda_run(const void *cubin, size_t size, const KrCudaLaunch *launches, size_t n,
                     KrCudaBuffer *bufs, size_t nbufs, double timeout_s, KrDiags *diags);

/* ---- A GPU child for many runs (runtime/cuda_server.c) -------------------------------------------
 * kr_cuda_run starts a process, a context and a module load for each call; a verification of
 * twenty small cases spends nearly all its time there. A server is one child that opens the
 * context and loads every module once, then runs request after request on buffers in a host pool
 * shared with it (mapped before the fork, so both see it at the same addresses). Each request
 * copies its buffers to the device, runs its launches in order and copies the buffers back, as
 * kr_cuda_run does; module state (__device__ variables) carries from one request to the next, as
 * it does for a program that calls a kernel twice. A request that fails ends the child (a CUDA
 * error leaves the context unusable) and the next request starts a fresh one; one that outlasts
 * the time limit of a phase is killed and reported as a hang. The parent survives any child. */
typedef struct KrCudaServer KrCudaServer;

typedef struct KrCudaServerModule {
  const void *cubin;
  size_t size;
  const char *label;       /* "reference", "candidate": for messages */
} KrCudaServerModule;

/* Maps a pool of pool_bytes of shared host memory (and as much GPU memory, allocated by the
 * child, which refuses with the figures when the GPU has not that much free), starts the child
 * and waits until its modules are loaded. KR_ERR with one error ("no GPU: ...", a cubin the GPU
 * cannot load, ...) when it cannot. The modules' bytes must live until kr_cuda_server_free. */
KrStatus kr_cuda_server_start(const KrCudaServerModule *mods, size_t nmods, size_t pool_bytes,
                              double timeout_s, KrCudaServer **out, KrDiags *diags);
/* Host memory in the pool, 256-byte aligned; NULL when the pool is full. */
void *kr_cuda_server_alloc(KrCudaServer *s, size_t bytes);
/* Frees every pool allocation at once (between cases). */
void kr_cuda_server_reset(KrCudaServer *s);
/* Runs launches of module `module` on buffers from the pool. Arguments are copied as 8 bytes
 * each: args[i] must point to 8 readable bytes (a pointer, or a scalar in a union slot as
 * runtime/prun.c packs them). KR_OK when every launch completed and the buffers came back;
 * else one error, as kr_cuda_run's, and *hung (may be NULL) says whether the time limit
 * killed it. */
KrStatus kr_cuda_server_run(KrCudaServer *s, size_t module, const KrCudaLaunch *launches, size_t n,
                            const KrCudaBuffer *bufs, size_t nbufs, bool *hung, KrDiags *diags);
/* The same, with the buffers left where they are on the device: nothing is copied in or out, so
 * the buffers must have been put there by kr_cuda_server_data in the same child. KR_ERR with an
 * error when the child has ended since (its device memory went with it). */
KrStatus kr_cuda_server_run_resident(KrCudaServer *s, size_t module, const KrCudaLaunch *launches,
                                     size_t n, const KrCudaBuffer *bufs, size_t nbufs, bool *hung,
                                     KrDiags *diags);

/* ---- Buffers kept on the device (runtime/cuda_server.c) ------------------------------------------
 * A verification fills, poisons, restores and checks its buffers on the device, so that the
 * gigabytes of a benchmark-size case never cross PCIe except the outputs it compares. Each buffer
 * of the pool has its device copy at the same offset of the child's device allocation. The fill
 * kernels are those of the GPU's fill module (runtime/fill/kr_fill.cu), which must be one of the
 * server's modules. */
typedef enum {
  KR_CUDA_DATA_UPLOAD,     /* host to device */
  KR_CUDA_DATA_DOWNLOAD,   /* device to host: into `to` (pool memory) when set, else `host` */
  KR_CUDA_DATA_SET,        /* every pattern_size-byte unit (1, 2 or 4) set to `pattern` */
  KR_CUDA_DATA_FILL,       /* kr_fill: element i = kr_gen_value(key, gen, a, b, i) as `dtype` */
  KR_CUDA_DATA_CHECK,      /* kr_fill_check: the first element i that does not hold that */
} KrCudaDataKind;

typedef struct KrCudaData {
  KrCudaDataKind kind;
  const char *name;        /* the buffer's, for messages */
  void *host;              /* the buffer, in the pool */
  size_t bytes;
  void *to;                /* DOWNLOAD: where to, in the pool; NULL: `host` */
  uint32_t pattern;        /* SET */
  int pattern_size;
  uint64_t key, count;     /* FILL, CHECK: the generator (runtime/fill/kr_fill.h) */
  double a, b;
  int gen, dtype;          /* KR_GEN_UNIFORM…, KR_GEN_F32… */
  uint64_t first_diff;     /* CHECK, out: the first element that differs; UINT64_MAX: none */
} KrCudaData;

/* Runs the operations in order in the child, synchronising after each, with the fill kernels of
 * module `fill_module`. A request holding DOWNLOAD or CHECK reads what an earlier request left on
 * the device, so it needs the same child: KR_ERR with an error when that child has ended. KR_OK
 * when every operation completed; else one error naming the buffer. */
KrStatus kr_cuda_server_data(KrCudaServer *s, size_t fill_module, KrCudaData *ops, size_t n,
                             KrDiags *diags);
/* Seconds spent starting children (driver, context, module loads), in all. */
double kr_cuda_server_setup_s(const KrCudaServer *s);
void kr_cuda_server_free(KrCudaServer *s);

/* ---- Timing (runtime/cuda_bench.c) --------------------------------------------------------------- */

typedef struct KrBenchVariant {
  const char *label;       /* "original", "rewritten": for messages */
  const void *cubin;
  size_t size;
  const KrCudaLaunch *launches;
  size_t n;
} KrBenchVariant;

typedef struct KrBenchOptions {
  int warmup;              /* untimed repetitions of each variant first */
  int min_reps;            /* timed repetitions of each variant, at least */
  double min_seconds;      /* and at least this long in all (KR_BENCH_MAX_REPS at most) */
  int input_sets;          /* distinct device copies of each input, used in turn */
  size_t l2_flush_bytes;   /* written between repetitions to empty the L2 (0: no flush) */
  double timeout_s;        /* for the whole run */
  /* Buffers made on the device instead of copied there (NULL: every buffer is copied): fills[i]
   * of kind KR_CUDA_DATA_FILL (with the kernels of the fill module fill_cubin) or
   * KR_CUDA_DATA_SET makes each device copy of buffer i; other kinds copy the host's contents. */
  const KrCudaData *fills;
  const void *fill_cubin;
  size_t fill_size;
} KrBenchOptions;

enum { KR_BENCH_MAX_REPS = 10000 };

typedef struct KrBenchTimes {
  double median_ms, min_ms, max_ms, p10_ms, p90_ms;
  int reps;
} KrBenchTimes;

/* 5 warm-up, 50 repetitions, 1 s, 3 input sets, 256 MiB of L2 flush, 600 s. */
KrBenchOptions kr_bench_options_default(void);

/* Times every variant in one child process, interleaved (v0, v1, …, then the reverse order on
 * the next repetition, to cancel drift), with CUDA events around the launches only (for a host
 * library's variant, around the entry's call: its host code is part of what is timed). Buffers:
 * is_input[i] marks a read-only input: `input_sets` device copies are made of it (the same
 * contents at distinct addresses, so caches start cold) and repetition r uses copy r %
 * input_sets. is_inout[i] (may be NULL) marks a buffer read and written: before each repetition
 * it is restored from a pristine device copy. Every other buffer gets one device copy. Each copy
 * is made as o->fills says, else copied from the host. Before
 * each repetition, outside the timed region: inout buffers restored, then l2_flush_bytes
 * written. `o` NULL: the defaults. out[v] gets the median, spread and count of variant v. KR_ERR
 * with one error naming the variant and kernel when anything fails or the time limit passes. */
KrStatus kr_cuda_bench(const KrBenchVariant *v, size_t nv, KrCudaBuffer *bufs, const bool *is_input,
                       const bool *is_inout, size_t nbufs, const KrBenchOptions *o,
                       KrBenchTimes *out, KrDiags *diags);

/* The statistics of n > 0 times (sorted in place): median (the mean of the middle two when n is
 * even), min, max, and the 10th and 90th percentiles (linear interpolation between ranks). */
void kr_bench_stats(double *ms, int n, KrBenchTimes *out);

/* ---- Pure helpers, exported for tests ----------------------------------------------------------- */

/* True when a demangled function name ("void tk<float, 128>(float*)", "ns::k(float*, int)",
 * "saxpy") names the kernel a launch writes ("tk<float,128>", "ns::k", "saxpy"): the return type
 * and parameter list are dropped, blanks normalised, integer literal suffixes (4u, 5l) and casts
 * ((char)97) dropped, character literals ('a') read as numbers, "const T" read as "T const",
 * "unsigned" as "unsigned int" and "long int" as "long". */
bool kr_cuda_name_matches(const char *demangled, const char *launch_name);

/* Which of n demangled names a launch's kernel name means: the one that matches exactly, else the
 * only one that matches loosely (the launch leaves out enclosing namespaces, or template
 * arguments it lets the compiler deduce). -1: none; -2: more than one (overloads). */
long kr_cuda_name_pick(const char *const *demangled, size_t n, const char *launch_name);

/* Whether `bytes` are a host shared object (an ELF of type ET_DYN for a machine other than
 * EM_CUDA): a spec's entry built by nvcc with the static CUDA runtime (runtime/prun.c). Such a
 * module may stand wherever a cubin does (kr_cuda_run, a server's modules, a timed variant): its
 * launches are calls of the entry, `kernel` naming it for messages and the grid and block unused
 * (give 1s). The entry's host code launches its kernels on the default stream of the same
 * context; the call is checked with the CUDA runtime's last error, then synchronised. */
bool kr_cuda_is_library(const void *bytes, size_t size);

/* The SASS architecture a cubin was built for (90 for sm_90), from its ELF header; 0 when it is
 * not a cubin (PTX, a fatbin) or cannot be read. */
int kr_cuda_cubin_sm(const void *cubin, size_t size);

/* Translates a launch's arguments for the device: an argument tied to buffer b holds a host
 * address into bufs[b]; the device address at the same offset from dev[b] goes into slots[i] and
 * params[i] points at it. Other arguments pass through (params[i] = args[i]). False, with the
 * reason in err[errn], when an index is out of range or a pointer lies outside its buffer. */
bool kr_cuda_args_translate(const KrCudaLaunch *l, const KrCudaBuffer *bufs, size_t nbufs,
                            const unsigned long long *dev, unsigned long long *slots, void **params,
                            char *err, size_t errn);

#endif
