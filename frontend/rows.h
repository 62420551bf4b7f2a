/* frontend/rows.h: a row-reduction kernel lifted into its row nest (DESIGN.md, "Algorithm and
 * schedule": the row reductions).
 *
 * Half of what real kernels do is reduce rows: softmax, norms, sums, matrix-vector products, CSR
 * rows. Written naively, a row is walked either by one thread
 *
 *     int row = blockIdx.x * blockDim.x + threadIdx.x;
 *     if (row < rows) { float m = -INFINITY; for (int j = 0; j < cols; j++) m = fmaxf(m, x[row*cols+j]); … }
 *
 * or by one block that strides over it and reduces through shared memory:
 *
 *     int row = blockIdx.x; int tid = threadIdx.x; if (row >= rows) return;
 *     float m = -INFINITY; for (int j = tid; j < cols; j += blockDim.x) m = fmaxf(m, x[row*cols+j]);
 *     buf[tid] = m; __syncthreads(); for (int s = blockDim.x / 2; s > 0; s /= 2) { … } float rowmax = buf[0];
 *
 * Both lift to the same row nest: one parallel axis (the row, with its guard) and, per row, a
 * sequence of items:
 *   - a row loop `for (j = lo; j < hi; j++)` over the row's elements (bounds uniform in the row,
 *     also read from memory: `rowptr[row] .. rowptr[row + 1]`), whose body holds temporaries,
 *     accumulator updates (`acc += e`, `acc = acc + e`, `acc -= e`, `acc = fmaxf(acc, e)`, max,
 *     fminf, min, and the arg-max form `if (v > m) { m = v; arg = j; }` with >, >=, <, <=) and
 *     stores whose index moves with j (a map: `y[row*cols + j] = …`);
 *   - a statement run once per row (declarations of scalars such as `float mean = sum / cols;`,
 *     stores of results such as `y[row] = sum;`, if statements over them).
 * In the block form the shared-memory tree after a loop (`buf[tid] = acc; __syncthreads();` and
 * `for (s = blockDim.x / 2; s > 0; s /= 2) { if (tid < s) buf[tid] ⊕= buf[tid + s]; __syncthreads(); }`
 * with the accumulator's own ⊕) is read as what it computes: the accumulator reduced over the
 * row; every later `buf[0]` is that value (a substitution), `if (tid == 0)` marks statements of one
 * thread, and the remaining barriers are dropped.
 *
 * A block-form kernel with no row index at all (no blockIdx.x: the last step of a sum, one block
 * striding over the partial sums, `for (i = tid; i < m; i += blockDim.x) s += partial[i];`, then
 * the tree) is a nest of exactly one row: every block of its launch computes the same row, so a
 * rewrite may compute it once (or split it over many blocks). Its row is a name the lift makes up
 * (`single`), which the rewrite declares; it has no guard and a row count of 1.
 *
 * A block-form kernel of one element a thread (the first step of a sum),
 *
 *     int i = blockIdx.x * blockDim.x + threadIdx.x;   buf[tid] = i < n ? x[i] : 0.0f;   (or if/else)
 *     __syncthreads(); the tree; if (tid == 0) partial[blockIdx.x] = buf[0];
 *
 * is a nest whose row r is block r of the original launch and whose row loop the lift writes:
 * `for (i = r * blockDim.x + tid; i < min(r * blockDim.x + B, n); …) acc ⊕= x[i];` with acc (a
 * fresh name) starting at the tree's identity (what pads the elements past the bound must be it:
 * 0 for a sum, -INFINITY for a max, INFINITY for a min), B the original's blockDim.x, and
 * `blockIdx.x` in the row's statements read as the row (`elements`). A rewrite that changes the
 * launch no longer has the original's blockDim.x nor its gridDim.x (the row count), so it takes
 * them as trailing int parameters under the names `block_size` and `row_count` (pass.h,
 * KrLaunchChange.args). The statements the lift writes carry their text (KrRowItem.text).
 *
 * Refused with the construct and its line: a loop-carried value that is not an accumulator, an
 * accumulator read inside its loop, a nested loop, a store in a row loop whose index does not
 * move with j (or a read of the stored array elsewhere in that loop), shared memory used otherwise,
 * atomics, warp intrinsics, a block-form loop not strided by blockDim.x, a thread-form loop that
 * is. Everything is allocated from the arena; nodes stay valid while the tree lives. */
#ifndef KR_ROWS_H
#define KR_ROWS_H

#include "frontend/nest.h"

typedef enum { KR_ROWS_THREAD, KR_ROWS_BLOCK } KrRowsMap;

typedef struct KrRowAcc {
  const char *name;        /* the local */
  const char *type;        /* "float" */
  const char *init;        /* its initializer's text */
  KrRedOp op;              /* SUM, MAX, MIN; KR_RED_NONE for the index of an arg-max update */
  const char *fn;          /* MAX/MIN through a call ("fmaxf"); NULL for the arg-max comparison */
  const char *cmp;         /* arg-max form: the comparison of `if (v CMP acc)` (">", ">=", "<", "<=") */
  int arg;                 /* a value accumulator of an arg-max update: its index accumulator; -1 */
  int of;                  /* an index accumulator: its value accumulator; -1 */
  bool negate;             /* SUM through `acc -= e` */
  bool fma;                /* SUM through `acc = fmaf(a, b, acc)` (fma, __fmaf_rn, __fma_rn): each term
                            * a * b added with one rounding; value is the call */
  TSNode decl;             /* the declaration */
  TSNode update;           /* the statement that updates it in its loop */
  TSNode value;            /* e (the arg-max form: v; the index accumulator: what it is set to) */
  int item;                /* the loop (index into items) that updates it */
  const char *result;      /* the local that holds the reduced value for what follows: a later
                            * `float r = buf[0];` (block form) or `float r = acc;`, else the name */
} KrRowAcc;

typedef enum { KR_ROW_LOOP, KR_ROW_STMT } KrRowItemKind;

typedef struct KrRowItem {
  KrRowItemKind kind;
  TSNode node;             /* the for_statement, or the statement */
  /* KR_ROW_LOOP */
  const char *var;         /* "j" */
  const char *var_type;    /* "int" */
  const char *lo, *hi;     /* j in [lo, hi), as C text (the block form's thread offset taken out) */
  TSNode lo_node, hi_node; /* lo_node null: "0" or the thread index alone */
  TSNode body;             /* the loop's body statement */
  KrVec(int) accs;         /* the accumulators it updates */
  KrVec(const char *) writes;  /* arrays it stores (a map) */
  /* KR_ROW_STMT */
  bool store;              /* writes memory: one thread of the row runs it */
  int acc;                 /* the declaration of accumulator `acc`, else -1 */
  /* A statement the lift wrote (the element form's accumulator declaration; a row loop: its body,
   * the accumulator's update), emitted as it is; NULL: the node's text. */
  const char *text;
} KrRowItem;

/* `node`'s text is to be read as `text` (block form: `buf[0]` is the reduced accumulator). */
typedef struct KrRowSub {
  TSNode node;
  const char *text;
} KrRowSub;

typedef struct KrRows {
  const KrKernel *kernel;
  KrRowsMap map;
  const char *row;         /* the row's local (single: a fresh name no statement of the kernel reads) */
  TSNode row_decl;         /* single: null */
  bool single;             /* block form with no row index: one row, computed alike by every block */
  bool row_y;              /* block form: the row is blockIdx.y (a grid of (1, rows)), not blockIdx.x */
  bool elements;           /* block form of one element a thread: the rows are the original's blocks */
  const char *elem;        /* elements: the element index's local ("i") */
  const char *block_size;  /* elements: the name a rewrite gives the original launch's blockDim.x */
  const char *row_count;   /* elements: the name a rewrite gives the original launch's gridDim.x */
  const char *tid;         /* block form: the local holding threadIdx.x, or NULL */
  const char *guard;       /* the row's guard as a condition that must hold ("row < rows"), or NULL */
  TSNode guard_hi;         /* its bound (for the launch's extent), or null */
  KrNodes uniform;         /* declarations of uniform locals before the row's work, in order */
  KrVec(KrRowAcc) accs;
  KrVec(KrRowItem) items;
  KrVec(KrRowSub) subs;
  const char *shared;      /* block form: the shared array the original reduced through */
  const char *block_const; /* block form: the constant its row loops step by, or its tree starts at
                            * twice of, where that is not blockDim.x (`j += THREADS`); the original
                            * is then right only for blocks of that many threads; NULL: none */
  uint32_t at;             /* the first row loop */
} KrRows;

/* Lifts kernel k into its row nest. NULL when it is not a row reduction; then an error naming the
 * construct and its location is in `diags`. */
KrRows *kr_rows_lift(const KrTree *tree, const KrKernel *k, KrArena *arena, KrDiags *diags);

/* The index of the accumulator named `name`, or -1. */
int kr_rows_acc(const KrRows *r, const char *name);

/* For people (`krewrite kernels --nest`). */
void kr_rows_text(const KrRows *r, const KrTree *tree, KrBuf *out);

#endif
