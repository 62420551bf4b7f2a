/* runtime/cuda_internal.h: what runtime/cuda.c shares with cuda_bench.c and cuda_once.c: the
 * driver API as resolved by dlopen (the few types declared here, so cuda.h is not needed), the
 * session a child opens, and the child-to-parent protocol. Nothing here may run in krewrite's
 * own process except kr__cuda_fork and the record reader: CUDA is initialised only in the forked
 * child. The one exception is kr__cuda_run_child called by the launch-once mode (cuda_once.h),
 * whose whole process is a disposable child that the profiler started. */
#ifndef KR_CUDA_INTERNAL_H
#define KR_CUDA_INTERNAL_H

#include "runtime/cuda.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
  KR_CUDA_SUCCESS = 0,
  KR_CUDA_ERROR_INVALID_VALUE = 1,
  KR_CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  KR_CUDA_ERROR_NOT_FOUND = 500,
  KR_CU_DEVICE_ATTRIBUTE_SMS = 16,
  KR_CU_DEVICE_ATTRIBUTE_CC_MAJOR = 75,
  KR_CU_DEVICE_ATTRIBUTE_CC_MINOR = 76,
  KR_CU_DEVICE_ATTRIBUTE_SMEM_OPTIN = 97,
  KR_CU_FUNC_ATTRIBUTE_MAX_THREADS = 0,
  KR_CU_FUNC_ATTRIBUTE_SHARED_SIZE = 1,
  KR_CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  KR_CU_FUNC_ATTRIBUTE_MAX_DYN_SMEM = 8,
  KR_CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
  KR_CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER = 14,
};

/* The driver entry points; the optional ones (CUDA 12.4+) may be NULL. */
typedef struct KrCudaDriver {
  void *lib;
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*ModuleGetFunctionCount)(unsigned *, CUmodule);                   /* optional */
  CUresult (*ModuleEnumerateFunctions)(CUfunction *, unsigned, CUmodule);     /* optional */
  CUresult (*FuncGetName)(const char **, CUfunction);                        /* optional */
  CUresult (*FuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);      /* optional */
  CUresult (*FuncSetAttribute)(CUfunction, int, int);
  CUresult (*FuncGetAttribute)(int *, int, CUfunction);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*MemGetInfo)(size_t *, size_t *);                                /* optional */
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*MemsetD16)(CUdeviceptr, unsigned short, size_t);
  CUresult (*MemsetD32)(CUdeviceptr, unsigned, size_t);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*GetErrorString)(CUresult, const char **);
} KrCudaDriver;

/* ---- Child-to-parent records: fixed size, each written with one write() (atomic, under
 * PIPE_BUF). PHASE says what the child is doing now (for a time-out's message, and to restart a
 * per-step time limit); FAIL carries the one error; INFO carries probe results; DONE ends a
 * successful run. */
enum { KR_CREC_PHASE, KR_CREC_FAIL, KR_CREC_INFO, KR_CREC_DONE };

typedef struct KrCudaRecord {
  int kind;
  int value[3];            /* kr__cuda_send sets the first two; the probe's INFO the third (the SMs) */
  char text[2000];
} KrCudaRecord;

/* A session in the child: the driver, device 0 and its primary context. `fd` is the pipe. */
typedef struct KrCudaSession {
  KrCudaDriver drv;
  int fd;
  CUdevice dev;
  CUcontext ctx;
  int cc_major, cc_minor, smem_optin;
} KrCudaSession;

/* A loaded module and the demangled names of its functions (when the driver can list them). A
 * module whose bytes are a host library (kr_cuda_is_library: a spec's entry, built by nvcc as a
 * shared object, runtime/prun.c) is opened with dlopen instead, and `call` is its
 * kr_gpu_entry_call: each launch of such a module is a call of the entry with the launch's
 * arguments; its grid and block mean nothing. */
typedef struct KrCudaModule {
  CUmodule mod;
  unsigned count;
  CUfunction *fns;
  char **names;            /* demangled, malloc'd */
  void *dl;                /* a host library: its handle */
  int (*call)(void **args, char *err, unsigned long n);
} KrCudaModule;

void kr__cuda_send(int fd, int kind, int v0, int v1, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));
/* Child: true when r is success; else sends FAIL "NAME: description, <context>" and false. */
bool kr__cuda_ok(KrCudaSession *s, CUresult r, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* Child: opens the driver, device 0 and its primary context; on failure sends FAIL "no GPU: …". */
bool kr__cuda_session_open(KrCudaSession *s, int fd);
/* Child: loads a cubin (cuModuleLoadData), or a host library: written to a memfd, opened with
 * dlopen, its CUDA runtime started (cudaFree(0), on the session's primary context) so that the
 * runtime's own set-up, module loads included, happens before the sandbox. */
bool kr__cuda_module_load(KrCudaSession *s, const void *cubin, size_t size, const char *what,
                          KrCudaModule *m);
/* Child: makes launch l of module m ready in *f (kr__cuda_kernel_find, then
 * kr__cuda_launch_prepare); a library module's launch needs nothing (*f = NULL). */
bool kr__cuda_launch_ready(KrCudaSession *s, KrCudaModule *m, const KrCudaLaunch *l, const char *where,
                           CUfunction *f);
/* Child: starts launch l with its translated parameters, without synchronising: cuLaunchKernel,
 * or for a library module the entry's call, which returns when the entry's host code has, its
 * launches queued (the CUDA runtime's last error is checked then). */
bool kr__cuda_launch_start(KrCudaSession *s, const KrCudaModule *m, CUfunction f, const KrCudaLaunch *l,
                           void **params, const char *where);
bool kr__cuda_kernel_find(KrCudaSession *s, KrCudaModule *m, const char *name, CUfunction *f);
/* Child: checks a launch against what the kernel and device allow (threads per block, shared
 * memory, parameter count and sizes) and raises the dynamic shared memory limit if needed. */
bool kr__cuda_launch_prepare(KrCudaSession *s, CUfunction f, const KrCudaLaunch *l,
                             const char *where);

/* Child: runs one launch and synchronizes; buffer arguments are translated to `dev`. */
bool kr__cuda_launch_sync(KrCudaSession *s, const KrCudaModule *m, CUfunction f, const KrCudaLaunch *l,
                          const KrCudaBuffer *bufs, size_t nbufs, const CUdeviceptr *dev,
                          const char *where);
/* Child: frees the names kr__cuda_module_load listed (the module goes with the context). */
void kr__cuda_module_release(KrCudaModule *m);
/* Child: enters the GPU sandbox (runtime/sandbox.h, KR_SANDBOX_GPU) once the context exists and
 * the modules are loaded, with a SIGSYS handler that reports a forbidden call as FAIL "the GPU
 * process tried to …"; on failure sends FAIL and returns false. Never in a process that goes on
 * afterwards (cuda_once.c's run in krewrite itself). */
bool kr__cuda_confine(KrCudaSession *s);

/* Parent: refuses a launch whose name, dimensions or arguments are malformed, or a buffer that
 * is not shared memory; one error each. */
bool kr__cuda_check_launches(const KrCudaLaunch *l, size_t n, const KrCudaBuffer *bufs,
                             size_t nbufs, const char *where, KrDiags *d);
bool kr__cuda_check_buffers(const KrCudaBuffer *bufs, size_t nbufs, bool need_shared, KrDiags *d);

/* What kr_cuda_run's child runs: load the cubin, copy the buffers in, run the launches in order
 * (synchronizing after each), copy every buffer back. */
typedef struct KrCudaRunJob {
  const void *cubin;
  size_t size;
  const KrCudaLaunch *launches;
  size_t n;
  KrCudaBuffer *bufs;
  size_t nbufs;
  bool confine;            /* enter the GPU sandbox after loading (a forked child only) */
} KrCudaRunJob;

/* Child (or a process that is itself disposable, as the launch-once run under Nsight Compute in
 * runtime/cuda_once.c): runs a KrCudaRunJob, reporting PHASE records, one FAIL or a DONE on fd. */
void kr__cuda_run_child(void *job, int fd);

typedef struct KrCudaOutcome {
  bool done, failed, timed_out;
  bool interrupted;        /* Ctrl-C (KR_RECORD_INTERRUPTED): the child was killed, not timed out */
  int status;
  KrCudaRecord phase, fail, info;
} KrCudaOutcome;

/* Parent: forks a child that runs fn(ctx, fd) and exits, and watches it: the time limit runs
 * from the start, and again from each PHASE record when per_phase is set; past it the child is
 * killed. KR_ERR (with an error) only when the child could not be started. */
KrStatus kr__cuda_fork(void (*fn)(void *ctx, int fd), void *ctx, double timeout_s, bool per_phase,
                       KrCudaOutcome *o, KrDiags *d);
/* Parent: KR_OK when the child finished; else one error from what the outcome says. */
KrStatus kr__cuda_outcome(const KrCudaOutcome *o, double timeout_s, KrDiags *d);

#endif
