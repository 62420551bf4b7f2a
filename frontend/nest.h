/* frontend/nest.h: a kernel lifted into its iteration space (DESIGN.md, "Algorithm and schedule").
 *
 * A naive kernel says what one thread computes. The nest says what the whole launch computes:
 *
 *     parallel  row < M    (row = blockIdx.y * blockDim.y + threadIdx.y)
 *     parallel  col < N    (col = blockIdx.x * blockDim.x + threadIdx.x)
 *     reduce    k in [0, K)
 *       sum += A[row*K + k] * B[k*N + col]           (accumulator sum, op +, init 0.0f)
 *     epilogue  C[row*N + col] = sum
 *
 * A kernel that uses no threadIdx.z may read blockIdx.z as a batch index, a value uniform over each
 * block (batch: the schedules keep the launch's grid.z and compute each batch's nest per block).
 * Parallel axes come from the thread map: a local defined as blockIdx.d * blockDim.d + threadIdx.d
 * (threadIdx.d and blockIdx.d also through locals naming them, `int tx = threadIdx.x;`, when nothing
 * else reads those names)
 * (operands in any order; a block size fixed in the kernel, a literal or a name the file binds to a
 * constant such as `#define TILE 16`, is accepted instead of blockDim.d and recorded: a schedule pass
 * then records that the original is launched with blocks of that size), a
 * flat index of that form split by `/` and `%` into two axes (`row = idx / N; col = idx % N`) or more
 * (`q = idx % Q; p = (idx / Q) % P; n = idx / (Q * P)`: each part's divisor the product of the
 * extents below it), or a
 * grid-stride loop `for (int v = map; v < hi; v += blockDim.d * gridDim.d)` (the step also as
 * `gridDim.d * blockDim.d`, `v = v + s`, or a uniform local of that value), nested for 2-D, with
 * nothing after it: its condition is the axis's guard.
 * Their extents come from the guard: the conditions of an enclosing `if (row < M && col < N)` or of
 * early returns (`if (row >= M) return;`), and for a flat index `idx < M * N`. A guard conjunct over
 * two axes (`col <= row`) is kept as a guard and applies to the output only.
 *
 * The reduction axis is a `for` loop `for (int k = lo; k < hi; k++)` with uniform bounds (a `#pragma
 * unroll` hint above it is read as a comment: the schedule's loops replace it), or a band of
 * such loops perfectly nested (a convolution's `c`, `r`, `s`: each loop's body is declarations, then
 * the next loop; axes reduce .. reduce + nreduce - 1). The innermost body is scalar temporaries and one
 * update of the accumulator, possibly under an `if` whose condition reads axes, temporaries and
 * parameters only (the zero padding of a convolution: update_if). The update is of a local (`sum += e`, `sum = sum + e`,
 * `sum -= e`, `sum = fmaxf(sum, e)`, `max`, `fminf`, `min`, `sum = fmaf(x, y, sum)` and fma, __fmaf_rn,
 * __fma_rn: a sum of products the schedules keep fused) or an element of a global array whose
 * index does not depend on the loop (`C[i*N+j] += e`). Statements before the loop (the accumulator's
 * declaration, `C[i*N+j] *= beta`) are the prologue, those after it the epilogue; both are kept as
 * text and re-emitted per output. A kernel without a loop is a nest of parallel axes only (a copy,
 * a transpose, a stencil); its body may hold if/else statements whose conditions read only axes,
 * parameters and constants (no memory, no calls), with assignments, declarations and further ifs
 * under them (no loops, no returns): they are kept whole in the epilogue (and listed in branches).
 * An `if` without an else that is the last statement is the guard when its condition reads as one.
 *
 * Each reference records where it is evaluated: per axis, the range [lo, hi) that the guards and
 * the conditions around it leave (`axis OP bound` narrows it, `||` takes the hull of its sides,
 * `!=` moves an end); a condition over an axis that is not such a bound marks the range loose.
 *
 * Array references carry their index as a linear form over the nest's axes, with coefficients
 * that are integers times uniform symbols (parameters, macros, constants, blockDim): the tile
 * passes read reuse (a coefficient of 0 along an axis) and contiguity (a coefficient of 1) from
 * them. Sizes may be kernel parameters or compile-time constants (`#define NI 1024`, `constexpr`).
 *
 * What the nest cannot read is refused with the construct and its line: atomics, barriers,
 * existing __shared__ arrays, warp intrinsics, indices that are not linear in the axes, a second
 * loop, threadIdx used directly in an index, a loop-carried value that is not the accumulator.
 * Everything is allocated from the arena; nodes stay valid while the tree lives. */
#ifndef KR_NEST_H
#define KR_NEST_H

#include "frontend/model.h"

#define KR_NEST_MAX_SYMS 4

/* One term of a linear form: coef * syms[0] * … * var (var NULL: the constant part). */
typedef struct KrNestTerm {
  long long coef;
  int var;                               /* index into nest->axes, or -1 */
  const char *syms[KR_NEST_MAX_SYMS];    /* uniform symbols, sorted */
  int nsyms;
} KrNestTerm;

typedef struct KrNestForm {
  KrVec(KrNestTerm) terms;   /* normalised: sorted by (var, syms), like terms merged, no zeros */
} KrNestForm;

typedef KrVec(TSNode) KrNodes;

/* A uniform symbol of the forms whose value the file fixes (`#define R 2`, `constexpr int R = 2`). */
typedef struct KrNestConst {
  const char *name;
  long long value;
} KrNestConst;

typedef enum { KR_AXIS_PARALLEL, KR_AXIS_REDUCE } KrAxisKind;

typedef struct KrNestAxis {
  const char *name;          /* the kernel's variable: "row", "col", "k" */
  KrAxisKind kind;
  int dim;                   /* parallel: the thread-map dimension 0 (x), 1 (y), 2 (z); -1 else */
  bool grid_stride;          /* parallel: a grid-stride loop `for (v = map; v < hi; v += blockDim * gridDim)` */
  const char *block;         /* parallel: "blockDim.x", or the block size the map fixes ("256", "TILE") */
  /* A flat index split: this axis is `flat / div` (outer), `flat % div` (inner) or, for a flat index
   * split into more than two axes, `(flat / step) % div` (a middle part: step set, outer false). */
  const char *flat;          /* the flat index's name, or NULL */
  const char *div;           /* the divisor's text (the modulus of an inner or middle part) */
  const char *step;          /* a middle part's divisor, or NULL */
  TSNode div_node;           /* the divisor's expression */
  bool outer;
  const char *lo, *hi;       /* bounds as C text, lo <= v < hi; hi NULL: not bounded by a guard */
  TSNode hi_node;            /* the bound's expression (for an `idx < total` bound: total) */
  TSNode loop;               /* reduce: its for statement */
  uint32_t at;               /* where the axis is defined */
} KrNestAxis;

/* The values of one axis at which a reference is evaluated, as the guards and the conditions around
 * it bound them: lo <= axis < hi, both uniform forms (hi NULL: no bound is known). `loose`: a
 * condition over the axis that the nest cannot read as a bound encloses the reference (at
 * loose_at), so the axis may take fewer values than the range says. */
typedef struct KrNestRange {
  KrNestForm lo;
  const KrNestForm *hi;
  bool loose;
  uint32_t loose_at;
} KrNestRange;

typedef struct KrNestRef {
  const char *array;         /* the pointer parameter */
  int param;                 /* its index in the kernel's parameters */
  bool write;                /* stored (or updated) rather than read */
  TSNode node;               /* the subscript_expression */
  KrNestForm index;
  bool in_loop;              /* inside the reduction loop's body */
  bool cond;                 /* under a condition of the body (a branch), not only the guards */
  KrNestRange *range;        /* per axis (nest->axes.len): where the reference is evaluated */
} KrNestRef;

typedef enum { KR_RED_NONE, KR_RED_SUM, KR_RED_MAX, KR_RED_MIN } KrRedOp;

/* A guard is one comparison (<, <=, >, >=) whose sides are linear in the axes: over one axis it
 * holds on an interval of that axis, so it holds on a whole tile when it holds at the tile's first
 * and last index (the schedule emitter's interior loads rely on this). */
typedef struct KrNestGuard {
  const char *text;          /* the conjunct, as a condition that must hold ("row < M") */
  int naxes;                 /* how many parallel axes it mentions */
  uint32_t at;
} KrNestGuard;

typedef struct KrNest {
  const KrKernel *kernel;
  KrVec(KrNestAxis) axes;    /* parallel axes in definition order, then the reduction axes */
  int reduce;                /* index of the (outermost) reduction axis, or -1 */
  int nreduce;               /* reduction axes: 1, or more for a band of perfectly nested loops (a
                              * convolution's c, r, s), which are axes reduce .. reduce + nreduce - 1 */
  KrVec(KrNestGuard) guards;
  KrNodes uniform;     /* declarations of uniform locals, in order (re-emitted verbatim) */
  KrNodes flats;       /* declarations of flat indices that were split */
  KrNodes derived;     /* declarations of locals computed from the axes (`int base = row * K`) */
  KrVec(unsigned) derived_axes;   /* for each, the bit mask of the axes it reads */
  KrNodes loop_derived;      /* declarations in the loop body of integer locals linear in the axes
                              * (`int ih = p * stride - pad + r;`), also kept in temps */
  KrVec(unsigned) loop_derived_axes;
  /* The reduction. */
  KrRedOp op;
  const char *acc;           /* the local accumulator's name, or NULL for a global one */
  const char *acc_type;      /* "float" */
  const char *acc_init;      /* its initializer's text */
  TSNode acc_decl;           /* the declaration of a local accumulator */
  int acc_ref;               /* a global accumulator: index into refs of the updated element */
  TSNode loop;               /* the for_statement */
  int loop_index;            /* index into kernel->loops */
  TSNode update;             /* the expression_statement that updates the accumulator */
  TSNode update_if;          /* the if statement the update is under (a convolution's padding), or null */
  TSNode update_cond;        /* its condition */
  /* The condition read as a conjunction of linear comparisons, each conjunct `form >= 0` over the
   * axes (temporaries expanded; `a < b` becomes b - a - 1 >= 0); empty when a conjunct is not such a
   * comparison (`!=`, `||`, a call), in which case the condition is only available as text. */
  KrVec(KrNestForm) cond_ge;
  TSNode update_value;       /* e in `acc += e` (or the non-accumulator argument of max/min; the
                              * fmaf call of `acc = fmaf(x, y, acc)`, whose factors kr_nest_factors
                              * gives) */
  const char *combine_fn;    /* max/min: the function the update calls ("fmaxf") */
  KrNodes temps;       /* declarations in the loop body before the update */
  KrNodes prologue;    /* statements before the loop (not the accumulator's declaration) */
  KrNodes epilogue;    /* statements after the loop */
  KrNodes branches;    /* if statements of a nest without a reduction (kept in the epilogue) */
  KrVec(KrNestRef) refs;
  KrVec(KrNestConst) consts; /* the symbols of the forms that are compile-time constants */
  bool early_return;         /* the guard came from `if (…) return;` statements */
  /* The kernel reads blockIdx.z as a value uniform over each block, a batch index (`int b =
   * blockIdx.z;`, `A[b * M * K + …]`; it is then the uniform symbol "blockIdx.z" of the forms): it
   * uses no threadIdx.z, and a rewrite keeps the original launch's grid.z. */
  bool batch;
} KrNest;

/* Lifts kernel k. NULL when the kernel cannot be lifted; then an error naming the construct and
 * its location is in `diags` (relative to `src`). */
KrNest *kr_nest_lift(const KrTree *tree, const KrKernel *k, KrArena *arena, KrDiags *diags);

/* Questions the schedule passes ask. */
/* The coefficient of axis `axis` in `f` as C text ("0", "1", "K", "4 * N"). */
const char *kr_nest_coef_text(const KrNestForm *f, int axis, KrArena *arena);
/* True when the coefficient of `axis` is the integer `c` (0 when absent). */
bool kr_nest_coef_is(const KrNestForm *f, int axis, long long c);
/* The factors of a product `value` (a nest's update_value), left to right, parentheses stripped, into
 * *out: `x * y * z` gives x, y, z, and a fused multiply-add `fmaf(x, y, acc)` (also fma, __fmaf_rn,
 * __fma_rn) x and y; anything else is one factor, itself. */
void kr_nest_factors(const KrTree *tree, TSNode value, KrArena *arena, KrNodes *out);
/* True when a - b is the integer *d (the two forms differ only in their constant part). */
bool kr_nest_form_offset(const KrNestForm *a, const KrNestForm *b, long long *d);
/* The form as C text over the axis names. */
const char *kr_nest_form_text(const KrNest *n, const KrNestForm *f, KrArena *arena);
/* The form as C text with each axis replaced by its value's text (value[axis], parenthesised); every
 * axis the form reads must have one. */
const char *kr_nest_form_text_at(const KrNestForm *f, const char *const *value, KrArena *arena);

/* One printer for people (`krewrite kernels --nest`) and one for tools (--json). */
void kr_nest_text(const KrNest *n, const KrTree *tree, KrBuf *out);
void kr_nest_json(const KrNest *n, const KrTree *tree, KrBuf *out);

#endif
