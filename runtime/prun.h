/* runtime/prun.h: running a problem's launches on one side (the reference or the candidate) and
 * one device, the part verification (verify.c) and timing (bench.c) share. Private to runtime/. */
#ifndef KR_PRUN_H
#define KR_PRUN_H

#include "backend/nvcc.h"
#include "frontend/model.h"
#include "passes/pass.h"
#include "runtime/cuda.h"
#include "runtime/emu.h"
#include "runtime/verify.h"

typedef struct KrSide {
  const char *label;        /* "reference" / "candidate" */
  const char *path, *text;
  size_t len;
  const char *own_dir;      /* a candidate read from a file: its folder, searched before the source's */
  const KrBuildFlags *build;  /* the defines it is parsed with (kr__side_build: the spec's) */
  KrDevice device;
  KrArena *model_arena;
  KrSource src;
  KrTree *tree;
  KrModel *model;
  KrEmuModule *mod;         /* KR_DEVICE_CPU */
  KrCubin cubin;            /* KR_DEVICE_CUDA */
  KrVec(KrLaunchChange) changes;  /* per spec launch, from the recipe's passes; `drops` set on a launch
                                   * the side leaves out (the named kernel does its work: fuse) */
  struct KrWorkspace *ws;   /* per spec launch: the workspace its launch change asks for (kr__workspaces_ready) */
} KrSide;

/* A launch's workspace (KrLaunchChange.workspace): shared host memory (kr_emu_alloc, or a GPU
 * server's pool) passed as the kernel's trailing argument; on the GPU it is one more buffer,
 * after the spec's. */
typedef struct KrWorkspace {
  void *host;               /* NULL: the launch has none */
  size_t bytes;
  bool pooled;              /* in a server's pool, freed with it */
} KrWorkspace;

/* Symbol values of one case, and the launch dimensions being computed. */
typedef struct KrEnv {
  const KrSpec *spec;
  const int64_t *sizes;
  int64_t grid[3], block[3], shmem;
  /* The launch whose dimensions are being computed and the kernel it runs: a pass's launch change
   * may name the kernel's scalar parameters as `param.NAME` (the value the launch passes). */
  const KrLaunchSpec *launch;
  const KrKernel *kernel;
  /* The symbol `sms` of a launch change: the SMs of the device the launches being packed run on (set by
   * kr__pack from the side's device; 0 before, read as the emulator's). */
  int sms;
} KrEnv;

/* One buffer of the problem at one size. `dev` is host memory shared with child processes
 * (kr_emu_alloc): the emulator runs on it, the GPU backend copies it in and out. */
typedef struct KrPBuf {
  const KrBufferSpec *spec;
  size_t count, bytes;
  void *dev;
  void *snapshot;           /* inputs as filled, to check they come back unmodified */
  void *ref;                /* the reference's output */
  bool pooled;              /* dev is in a GPU server's pool (kr_cuda_server_alloc), not kr_emu_alloc */
  size_t head;              /* elements of its allocation before `dev` (poisoned): 1 for the buffer
                             * of an offset case (kr__bufs_alloc_shifted), else 0 */
} KrPBuf;

typedef union KrSlot {
  void *p;
  float f;
  double d;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  uint16_t u16;
} KrSlot;

/* A pointer parameter of a kernel the spec launches that an applied pass reads or writes in wider
 * units than its elements (its record's KrAligned, passes/pass.h): verify's offset cases. */
typedef struct KrAlignNeed {
  const char *kernel;       /* the pass record's kernel (its qualified name) */
  const char *param;
  int bytes;
  const char *pass;
} KrAlignNeed;

/* What the candidate is and what it needs: its label for reports, the tolerance (the spec's, or
 * a lowering pass's when larger) and the precision statement. */
typedef struct KrCandidateInfo {
  const char *label;
  double rtol;
  const char *precision;
  bool reassociates;        /* an applied pass reassociates a sum (KrPass.reassociates) */
  bool lowered;             /* an applied pass lowers the precision (KR_PRECISION_LOWERS): `precision` says which */
  KrVec(KrAlignNeed) aligned;  /* from the applied passes' records; none for a candidate file */
} KrCandidateInfo;

/* Whether a spec launch ("scale", "ns::k", "tk<float, 256>") is of the kernel a pass record names
 * (its qualified name, without template arguments). */
bool kr__launch_is_kernel(const char *launch, const char *qualified, KrArena *a);

/* The tolerance of one output of dtype t (runtime/verify.c, buffer_rtol, says why): rtol, or for a
 * 16-bit output of a candidate whose arithmetic a pass changed (`widened`: lowered, or a sum
 * reassociated) max(rtol, sqrt(2 * rtol * u)). */
double kr__output_rtol(double rtol, bool widened, KrDtype t);

KrStatus kr__side_load(KrSide *s, KrDiags *d);
void kr__side_free(KrSide *s);
KrStatus kr__side_build(KrSide *s, const KrSpec *spec, const char *cache_dir, const char *arch,
                        KrArena *a, KrDiags *d);
const KrKernel *kr__kernel_of(const KrSide *s, const char *launch_name);
const char **kr__kernel_names(const KrSpec *s, KrArena *a);
/* The text nvcc builds for the GPU: a side's text (`tree` its parse, or NULL) with the host functions'
 * bodies left out as the emulator leaves them out (kr_model_drop_host_bodies), and after it, when the
 * spec launches template kernels (`tk<float, 128>`), one reference to each instantiation, so that the
 * cubin holds them (nothing in a file whose launches are the spec's may instantiate them). Lines keep
 * their numbers. */
extern const char *const kr__gpu_flags[1];   /* nvcc flags of the builds of kr__gpu_text */
const char *kr__gpu_text(const KrSpec *spec, const KrTree *tree, const char *text, size_t len, size_t *out_len,
                         KrArena *a);
/* "n=7, m=3": the size symbols' values, for reports. */
const char *kr__sizes_text(const KrSpec *s, const int64_t *v, KrArena *a);
/* The candidate's text, launch changes and info for a recipe applied once already: the run's input after its first
 * `passes` passes (the reference's own text when 0; SIZE_MAX: all, named by the recipe), with their
 * launch changes and precision.
 * `run` must outlive nothing made here (the text is copied into `a`). */
KrStatus kr__candidate_prefix(const KrSpec *spec, const struct KrRecipeRun *run, size_t passes,
                              KrSide *ref, KrSide *cand, KrCandidateInfo *info, KrArena *a, KrDiags *d);
/* Where a candidate comes from, as verify's and bench's options give it: a recipe applied once
 * already (run: its input after its first `passes` passes; SIZE_MAX: after all of them, named by
 * the recipe), else a .cu file. The runtime applies no recipe (search/candidate.h does). */
typedef struct KrCandidateSource {
  const char *candidate;
  const struct KrRecipeRun *run;
  size_t passes;
} KrCandidateSource;
/* The candidate's text, launch changes and info from `from`; neither run nor file: the original. */
KrStatus kr__candidate_of(const KrSpec *spec, const KrCandidateSource *from, KrSide *ref, KrSide *cand,
                          KrCandidateInfo *info, KrArena *a, KrDiags *d);

KrStatus kr__eval(KrEnv *e, const char *text, int64_t *v, KrArena *a, const char **why);
const char *kr__bufs_alloc(const KrSpec *s, KrEnv *e, KrPBuf *b, KrArena *a);
/* The same with `dev` from a GPU server's pool when `pool` is not NULL. */
const char *kr__bufs_alloc_in(const KrSpec *s, KrEnv *e, KrPBuf *b, KrCudaServer *pool, KrArena *a);
/* The same, with buffer `shifted` (SIZE_MAX: none) allocated one element larger and used from its
 * second element on: still `count` elements, filled, poisoned and compared as any buffer, but one
 * element past an aligned address (an offset case of verify.c), and every argument that passes it
 * moves with it. The element before it is poison. */
const char *kr__bufs_alloc_shifted(const KrSpec *s, KrEnv *e, KrPBuf *b, KrCudaServer *pool, size_t shifted,
                                   KrArena *a);
/* The bytes of every buffer at the case's sizes (e->sizes), without allocating: the sum, and
 * per buffer in `each` when not NULL; a reason when a count cannot be evaluated. */
const char *kr__bufs_bytes(const KrSpec *s, KrEnv *e, uint64_t *total, uint64_t *each, KrArena *a);
void kr__bufs_free(KrPBuf *b, size_t n);
const KrPBuf *kr__buf_named(const KrPBuf *b, size_t n, const char *name);
const char *kr__bufs_prepare(const KrSpec *s, KrEnv *e, KrPBuf *b, uint32_t seed, KrArena *a);
/* ---- Buffers made on the GPU (a verification's server, cuda.h "Buffers kept on the device") -----
 * The generated fills (kr_fill_generated), the poison and the zeroes are made on the device by
 * the fill module, with the host's values; only the CSR structures are filled on the host (and
 * snapshotted), then uploaded. With a pool, the reference's copy (`ref`) of an output or inout
 * buffer is pool memory too, so the device's outputs can be copied straight into it. */
bool kr__buf_ref_pooled(const KrPBuf *b);
/* kr__bufs_prepare for the buffers the generator cannot make; the others are left alone. */
const char *kr__bufs_prepare_host_part(const KrSpec *s, KrEnv *e, KrPBuf *b, uint32_t seed, KrArena *a);
/* Writes into ops[0..nb) the operations that make buffer set b on the device as
 * kr__bufs_prepare makes it on the host (the CSR structures uploaded from `dev`); returns nb. */
size_t kr__bufs_device_ops(const KrPBuf *b, size_t nb, uint32_t seed, KrCudaData *ops);
/* A FILL or CHECK operation of generated buffer b (stream: its index in the spec). */
KrCudaData kr__buf_fill_op(const KrPBuf *b, uint32_t seed, size_t stream, KrCudaDataKind kind);

/* Makes every workspace the side's launch changes ask for at the case's sizes, zeroed: in
 * `pool` when not NULL (a GPU server's: valid until its next reset), else emulator memory kept
 * by the side (reused while the size stays) and freed by kr__side_free. A run of the side starts
 * with this, so that each run finds its workspaces as a fresh allocation would be, and the rounds
 * of one run share them, as the launches of a program do. A reason when a size cannot be
 * evaluated or memory is short. */
const char *kr__workspaces_ready(const KrSide *s, const KrSpec *spec, KrEnv *e, KrCudaServer *pool, KrArena *a);
/* The bytes of the side's workspaces at the case's sizes (e->sizes), without allocating. */
uint64_t kr__workspaces_bytes(const KrSide *s, const KrSpec *spec, KrEnv *e, KrArena *a);
/* The side's workspaces as GPU buffers, written from cb[0] on (room for one per spec launch);
 * how many. Argument packing numbers them after the spec's buffers, in this order. */
size_t kr__workspace_buffers(const KrSide *s, const KrSpec *spec, KrCudaBuffer *cb);
/* Launches with their arguments packed (buffer arguments point at `dev` memory, and
 * arg_buffer says which buffer; a workspace is buffer spec->buffers.len + its rank among the
 * side's workspaces), *n of them (the spec's, less those the side drops), or a reason they cannot be
 * built. */
const char *kr__pack(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *b, KrArena *a,
                     KrCudaLaunch **out, size_t *n);
/* How kr__run_rounds runs a side. */
typedef struct KrRunHow {
  bool shuffle;             /* the emulator's shuffled thread order */
  uint32_t seed;            /* for the thread order */
  double timeout;           /* per launch (per phase on the GPU) */
  KrCudaServer *server;     /* on the GPU: the verification's child; NULL: a child per call */
  size_t module;            /* the side's module in the server */
  bool resident;            /* on the server: the buffers are on the device already (nothing is
                             * copied in or out: kr_cuda_server_run_resident) */
  size_t fill_module;       /* resident: the server's fill module, whose data requests zero the
                             * side's workspaces on the device before the run */
  bool *hung;               /* out, may be NULL: a launch was stopped at the time limit */
  const uint64_t *const *blocks;  /* emulator, per spec launch: only these blocks (NULL: all) */
  const size_t *nblocks;
  KrEmuRaceCheck races;     /* emulator: which races the memory checker looks for */
  const char **warning;     /* out, may be NULL: the first warning of a run that went on (a kernel's
                             * printf cut at the FIFO size) */
} KrRunHow;

/* Runs every launch of the spec once per buffer set, the sets in order in one process and one
 * loaded module (kr_emu_run_rounds, or one GPU server), so state a kernel leaves behind in its
 * module is there on the next run; a failure reason or NULL. */
const char *kr__run_rounds(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *const *sets,
                           size_t nsets, const KrRunHow *how, KrArena *a);
/* Before a run on the emulator: when the side's launches at the case's sizes (e->sizes) run loops to
 * compile-time bounds (the hint a time-out gives) and the emulator's measured cost per thread, loop
 * iteration and barrier predicts a launch past `factor` times `timeout` seconds, the message saying
 * so, with the estimate and that hint; NULL otherwise. *at gets the byte of the first such loop in
 * the side's source (for a located warning), *seconds the prediction. A prediction, never a verdict. */
const char *kr__fixed_work_predict(const KrSide *s, const KrSpec *spec, KrEnv *e, double timeout, double factor,
                                   uint32_t *at, double *seconds, KrArena *a);
/* Runs every launch of the spec on the side's device; a failure reason or NULL. */
const char *kr__run_side(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *b,
                         bool shuffle, uint32_t seed, double timeout, KrArena *a);

#endif
