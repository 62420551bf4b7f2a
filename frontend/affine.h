/* frontend/affine.h: affine index forms. An integer expression of a kernel (an array index, a
 * loop bound) is read into
 *
 *     c0 + c1*v1 + c2*v2 + ...      each ci = (integer) * (product of uniform symbols)
 *
 * where the vi are *index variables* (threadIdx.x/y/z, blockIdx.x/y/z and the induction variables
 * of enclosing for loops) and the coefficients are integers times products of *symbols*: values
 * that are the same for every thread of the launch (blockDim.*, gridDim.*, scalar kernel
 * parameters, and names declared outside the kernel: macros, constants, template parameters).
 * So `row * n + col` with `row = blockIdx.y * blockDim.y + threadIdx.y` is affine, with the
 * coefficient of threadIdx.y being `n` and that of blockIdx.y being `blockDim.y * n`.
 *
 * Local variables are substituted by their definition when they have exactly one (the
 * declaration's initializer, never assigned, incremented or address-taken afterwards) and that
 * definition is affine; `int i = blockIdx.x * blockDim.x + threadIdx.x; x[i]` therefore reads as
 * `blockIdx.x*blockDim.x + threadIdx.x`. A for loop's induction variable stays a variable when the
 * loop only changes it in its own header (`for (int k = 0; k < K; k++)`).
 *
 * Not affine, each reported with the construct and its location: a product of two index
 * variables (`i * j`), a memory load (`x[y[i]]`), `%`, `/`, `>>`, calls, conditionals, floating
 * literals, locals assigned more than once or of non-integer type, loop variables assigned in the
 * loop body, parameters assigned in the kernel. The arithmetic is over mathematical integers:
 * overflow and unsigned wrap-around are not modelled.
 *
 * Typical use (the index_precompute and vectorize passes):
 *
 *     KrAffineCtx *ac = kr_affine_ctx_new(cx->tree, cx->kernel, cx->arena);
 *     const KrAffine *a = kr_affine_of(ac, index_node);
 *     if (!a->ok) return kr_pass_skip(cx, a->at, "index '%s' is not affine: %s", ..., a->why);
 *     long long s;
 *     if (kr_affine_stride(ac, a, "threadIdx.x", &s) && s == 1) ...   // unit stride
 *     if (kr_affine_invariant_in(ac, a, loop_index)) ...               // hoistable out of loop
 *
 * Everything is allocated from the arena given to kr_affine_ctx_new; TSNodes must come from the
 * tree given there and stay valid while it lives. Forms are immutable once returned. */
#ifndef KR_AFFINE_H
#define KR_AFFINE_H

#include "frontend/model.h"
#include "frontend/scope.h"

/* Name resolution (kr_resolve, KrBinding) lives in scope.h. */

/* ---- Forms ----------------------------------------------------------------------------------- */
typedef enum {
  KR_AVAR_THREAD,   /* threadIdx.x/y/z */
  KR_AVAR_BLOCK,    /* blockIdx.x/y/z */
  KR_AVAR_LOOP,     /* the induction variable of an enclosing for loop */
} KrAffVarKind;

#define KR_AFF_MAX_SYMS 4   /* symbols in one coefficient; more is reported as not affine */

/* One term: coef * syms[0] * ... * syms[nsyms-1] * var. `var` is NULL for the constant part
 * (which may still be symbolic: `4 * n`). Symbols are sorted and may repeat (n*n). */
typedef struct KrAffTerm {
  long long coef;                       /* never 0 in a normalised form */
  const char *var;                      /* "threadIdx.x", "blockIdx.y", "k"; NULL: none */
  KrAffVarKind kind;                    /* meaningful when var != NULL */
  int loop;                             /* KR_AVAR_LOOP: index into kernel->loops, else -1 */
  const char *syms[KR_AFF_MAX_SYMS];    /* "blockDim.x", "n", "TILE" */
  int nsyms;
} KrAffTerm;

typedef struct KrAffine {
  bool ok;              /* false: not affine, see why/at */
  const char *why;      /* e.g. "'i * j' multiplies two index variables (i, j)" */
  uint32_t at;          /* byte offset of the construct `why` talks about */
  KrVec(KrAffTerm) terms; /* sorted by (var, loop, syms); like terms merged; zeros dropped */
} KrAffine;

typedef struct KrAffineCtx KrAffineCtx;

/* One context per kernel; it caches what it learns about local variables. */
KrAffineCtx *kr_affine_ctx_new(const KrTree *tree, const KrKernel *k, KrArena *arena);
/* The affine form of an integer expression of the kernel. Never NULL; check ->ok. */
const KrAffine *kr_affine_of(KrAffineCtx *cx, TSNode expr);

/* ---- Questions about a form ---------------------------------------------------------------------
 * Variables are named as in KrAffTerm.var: "threadIdx.x", "blockIdx.z", or a loop variable's name
 * (for loop variables the innermost loop of that name in the form is meant). */

/* The coefficient of `var` when it is a plain integer (0 when var does not occur). False when
 * the coefficient is symbolic (e.g. `n`) or the form is not affine. */
bool kr_affine_coef(const KrAffine *a, const char *var, long long *out);
/* The coefficient of `var` as C text ("1", "n", "4 * blockDim.x"; "0" when absent). */
const char *kr_affine_coef_text(const KrAffine *a, const char *var, KrArena *arena);
/* True when no index variable occurs: the value is the same for every thread of the launch. */
bool kr_affine_is_uniform(const KrAffine *a);
/* The step between neighbouring values of `var` ("threadIdx.x"), looking through loop
 * variables: a loop variable k contributes coef(k) * (the stride of k's initial value), which is
 * valid because its step (`k += s` or `k++`) must then be the same for every thread (no
 * threadIdx in s). False when the stride is symbolic or cannot be determined. */
bool kr_affine_stride(KrAffineCtx *cx, const KrAffine *a, const char *var, long long *out);
/* Shorthand: kr_affine_stride(threadIdx.x) is exactly 1 (consecutive threads, consecutive
 * elements: the access coalesces and can be vectorised). */
bool kr_affine_unit_stride_x(KrAffineCtx *cx, const KrAffine *a);
/* True when the value does not change while loop `loop` (index into kernel->loops) runs: no
 * variable of the form is assigned inside it (its own induction variable, or that of a loop
 * nested in it). Substituted locals have been replaced by their definitions, so a local defined
 * inside the loop from invariant values is invariant too. False for non-affine forms. */
bool kr_affine_invariant_in(KrAffineCtx *cx, const KrAffine *a, int loop);
/* Structural equality of two affine forms (same terms). */
bool kr_affine_equal(const KrAffine *a, const KrAffine *b);
/* a - b when that is a plain integer (e.g. x[i + 1] vs x[i]: 1). */
bool kr_affine_const_diff(const KrAffine *a, const KrAffine *b, long long *out);
/* C text of the form, terms in sorted order: "blockIdx.x * blockDim.x + threadIdx.x + 1";
 * "0" for the zero form; "<not affine: why>" when !ok. */
const char *kr_affine_text(const KrAffine *a, KrArena *arena);
/* The same with variable `var` written as `text` wherever it occurs ("(kt + kk)" for k): the
 * form of an index after its loop is split. */
const char *kr_affine_text_with(const KrAffine *a, const char *var, const char *text,
                                KrArena *arena);

/* The induction variable facts behind loop terms, for loop `loop` (index into kernel->loops):
 * its initial value and its per-iteration step as forms (either may be !ok when the expression is
 * not affine). Both NULL when the loop has no usable induction variable: no `T k = v` or `k = v`
 * initializer, or an update other than k++, ++k, k--, --k, k += s, k -= s, k = k + s. */
const KrAffine *kr_affine_loop_init(KrAffineCtx *cx, int loop);
const KrAffine *kr_affine_loop_step(KrAffineCtx *cx, int loop);

#endif
