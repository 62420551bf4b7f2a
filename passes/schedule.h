/* passes/schedule.h: the schedule record of one kernel and the emitter that regenerates the
 * kernel from its nest and that record (DESIGN.md, "Algorithm and schedule").
 *
 * The document keeps, per kernel, the text the kernel was first lifted from and the schedule the
 * schedule passes have built so far. Each schedule pass (tile, register_tile, double_buffer, split_k)
 * updates the record, validates it in one place (kr_schedule_check) and re-emits the whole kernel
 * from the nest as first lifted, so passes compose in any order and a later pass never has to
 * read the code an earlier one emitted. Text passes come after the schedule passes of a kernel. */
#ifndef KR_SCHEDULE_H
#define KR_SCHEDULE_H

#include "frontend/loops.h"
#include "frontend/nest.h"

#define KR_SCHED_MAX_STAGE 8

/* How a row nest's rows map onto threads: a block per row (block_reduce), a warp per row
 * (warp_reduce), or 32 rows on a block's x threads with each row's elements over its y threads
 * (block_reduce on rows whose elements are contiguous across rows: a column sum). */
typedef enum { KR_LAYOUT_NONE, KR_LAYOUT_BLOCK, KR_LAYOUT_WARP, KR_LAYOUT_COLUMN } KrRowsLayout;

/* The operands' precision on the tensor cores (tensor_core), KR_MMA_NONE: the SIMT schedule. */
typedef enum { KR_MMA_NONE, KR_MMA_TF32, KR_MMA_FP16, KR_MMA_BF16, KR_MMA_3XTF32 } KrMma;

typedef struct KrSchedule {
  int bm, bn;            /* block tile over the output's (m, n) axes; 0: not tiled */
  int bk;                /* k tile of the reduction axis */
  const char *stage[KR_SCHED_MAX_STAGE];   /* operands staged in shared memory */
  int nstage;
  bool pad;              /* pad shared rows by 4 elements (bank conflicts; keeps 16-byte rows) */
  int tm, tn;            /* outputs per thread along m and n (register tile); 1 x 1 by default */
  int stages;            /* shared-memory buffers of the k loop: 1, or 2..4 with cp.async */
  KrMma mma;             /* tensor_core: WMMA fragments fed from the staged tiles */
  int wm, wn;            /* its warp tile: the outputs one warp computes */
  int mma_m, mma_n, mma_k;   /* its WMMA shape (16 x 8 x 8 or 16 x 8 x 16 under mma_ptx) */
  bool mma_ptx;          /* tensor_core { api = "mma" }: PTX mma.sync and ldmatrix instead of the WMMA API */
  bool mma_wg;           /* tensor_core { api = "wgmma" } (with mma_ptx): Hopper's warpgroup wgmma.mma_async, one
                          * operand from registers, the other from a 128-byte-swizzled tile in shared memory */
  bool implicit;         /* implicit_gemm: a convolution's axes grouped into a GEMM's m, n and k */
  bool no_table;         /* implicit_gemm { table = false }: each gathered element's axes recovered by
                          * division where it is loaded, not looked up in the k tile's index table */
  bool no_patch;         /* implicit_gemm { patch = false }: under wgmma, the register operand gathered element
                          * by element even where its k tiles could be loaded as patches of its rows */
  int parts;             /* split_k: the k tiles split over gridDim.z parts, combined exactly; 0 or 1:
                          * not split */
  bool persistent;       /* persistent: the grid along m is at most the blocks the GPU holds at once (`sms` times
                          * the blocks an SM holds), each block walking the m tiles blockIdx.y, + gridDim.y, ... */
  bool persistent_down;  /* persistent { order = "descending" }: tile t walked as (tiles - 1 - t) */
  /* Row reductions (frontend/rows.h, passes/reduction.h). */
  KrRowsLayout layout;   /* how rows map onto threads; KR_LAYOUT_NONE: not scheduled */
  int threads;           /* threads per block */
  bool online;           /* online_softmax: a max and a sum of exponentials in one sweep */
  bool welford;          /* welford: a sum and a sum of squared deviations in one sweep */
  int row_parts;         /* split_rows: blocks per row; 0 or 1: not split */
  bool row_cluster;      /* split_rows: a row's blocks are a thread block cluster (distributed shared memory) */
  bool row_resident;     /* split_rows: a row's blocks run every stage, resident together, meeting in the workspace */
  bool row_cache;        /* row_cache: a row loaded by several sweeps kept on chip by the first */
  int cache_steps;       /* its 16-byte steps per thread in registers */
  int cache_shared;      /* KiB of dynamic shared memory for the rest */
  bool row_vector;       /* row loops by 16-byte steps where the row's accesses are aligned (checked at run time) */
  bool row_stream;       /* the row's own elements loaded and stored with the streaming (evict-first) hint */
} KrSchedule;

#define KR_SCHED_MAX_PARTS 64

/* sm_90's budgets the checks hold a schedule to. */
#define KR_SM90_SHARED_BYTES (227 * 1024)   /* per block, after opting in */
#define KR_SM90_MAX_THREADS 1024
#define KR_SM90_MAX_THREADS_PER_SM 2048
#define KR_SM90_SHARED_PER_SM (228 * 1024)  /* per SM, each resident block taking 1 KiB more */
#define KR_SM90_MAX_ACC_REGS 128            /* accumulator registers per thread we allow */

/* The kernel's schedule kept by the document between passes (passes/driver.c). */
typedef struct KrKernelSchedule {
  const char *kernel;    /* qualified name */
  char *lifted_text;     /* the document's text when the first schedule pass ran; owned */
  size_t lifted_len;
  KrSchedule s;
  char stage_names[KR_SCHED_MAX_STAGE][64];
} KrKernelSchedule;

/* The roles of the nest the emitter needs: which parallel axis is m (blockIdx.y) and which is n
 * (blockIdx.x, the contiguous axis of the output), and the reduction axis. */
#define KR_GROUP_MAX 6

typedef struct KrContraction {
  int m, n, k;           /* axis indices into nest->axes (of a group: its outermost axis) */
  int out;               /* the written reference the n axis was chosen by */
  /* Each role (0: m, 1: n, 2: k) as a group of the nest's axes, outermost first. A contraction's
   * groups are its single axes; implicit_gemm's view of a convolution has m = (n, p, q), n = (k) and
   * k = (c, r, s), each group's index the flattening of its axes. */
  int group[3][KR_GROUP_MAX];
  int ngroup[3];
} KrContraction;

/* Reads the contraction roles out of a nest; false (with a reason in *why) when the nest is not a
 * contraction the emitter handles: two parallel axes and one reduction. */
bool kr_contraction_of(const KrNest *n, KrContraction *c, const char **why, KrArena *a);
/* The same roles for a nest without a reduction (a copy, a transpose): k is -1. */
bool kr_movement_of(const KrNest *n, KrContraction *c, const char **why, KrArena *a);
/* True when the nest has no reduction and every array `s` stages is read contiguously along the
 * output's contiguous axis: a stencil, staged with its halo (else a transpose's tile). */
bool kr_movement_halo(const KrNest *n, const KrSchedule *s);
/* Either of the two: what `tile` takes. */
bool kr_tileable(const KrNest *n, KrContraction *c, const char **why, KrArena *a);
/* The roles a schedule works with: implicit_gemm's grouped view when the schedule has it (s->implicit),
 * else kr_tileable's. */
bool kr_schedule_roles(const KrNest *n, const KrSchedule *s, KrContraction *c, const char **why, KrArena *a);

/* Validates a schedule against the nest: tile sizes that divide into threads, the named staged
 * operands read in the loop, shared memory and registers within sm_90's budgets. NULL when it
 * holds, else the reason. */
const char *kr_schedule_check(const KrSchedule *s, const KrNest *n, const KrContraction *c, KrArena *a);

/* Fills an empty schedule (bm == 0) with the defaults: a 32 x 32 block tile, k tiles of 32,
 * every operand of the loop that a tile can stage staged in padded shared memory. */
void kr_schedule_defaults(KrSchedule *s, const KrNest *n, KrArena *a);

/* tensor_core: the thread tile its threads hand the block tile's outputs out by after the
 * fragments (TM x TN each); false when none covers the tile evenly. */
bool kr_schedule_mma_thread_tile(const KrSchedule *s, int *tm, int *tn);
/* tensor_core { api = "wgmma" }: which operand wgmma reads from shared memory (it reads tf32 only
 * along k): *x_is_m true for the m side's (the product computed transposed, rows along n), false for
 * the n side's. False, with why, when neither operand is contiguous along k. */
bool kr_schedule_wg_side(const KrNest *n, const KrSchedule *s, bool *x_is_m, const char **why, KrArena *a);

/* The record as JSON, for the audit log. */
void kr_schedule_json(const KrSchedule *s, KrBuf *out);

/* Why split_k cannot combine the parts of this nest's reduction exactly (no reduction, an
 * accumulator whose size is not known), or NULL. */
const char *kr_schedule_split_why(const KrNest *n, KrArena *a);

struct KrPassCtx;
/* The check of register_tile and double_buffer: the nest must be a contraction (KR_SKIP with the
 * reason, named after the pass, otherwise). */
KrStatus kr_schedule_check_contraction(struct KrPassCtx *cx);
/* Helpers the reduction emitter (passes/reduction.c) shares: the indentation unit of a kernel's
 * body, a uniform bound as an expression the runtime evaluates over `param.NAME` and constants
 * (*ok false when it is not one), and the kernel's __launch_bounds__ set to `text`. */
const char *kr_schedule_indent_unit(const KrTree *t, const KrKernel *k);
const char *kr_schedule_launch_expr(const KrTree *t, const KrKernel *k, KrLoops *lx, TSNode bound, KrArena *a, bool *ok);
void kr_schedule_set_bounds(struct KrPassCtx *cx, const char *text);
/* Replaces the kernel's __cluster_dims__(…) with `text` (NULL: removes it); false when it has none. */
bool kr_schedule_set_cluster(struct KrPassCtx *cx, const char *text);

/* Regenerates the kernel cx->kernel of the current text from `n` (lifted from `nt`) and `s`:
 * one edit replacing the kernel's body, and the launch change. */
KrStatus kr_schedule_emit(struct KrPassCtx *cx, const KrNest *n, const KrTree *nt, const KrSchedule *s);

#endif
