/* frontend/loops.h: loop analyses of one kernel, for the passes that restructure loops (unroll,
 * index_precompute) and those that need the scalar type of an expression (fast_math).
 *
 *   KrLoops *lx = kr_loops_new(tree, kernel, arena);
 *   const KrLoopInfo *li = kr_loops_info(lx, 2);       // kernel->loops.data[2]
 *   if (li->trip_kind == KR_TRIP_CONST) ... li->trip ...
 *   KrNameSet varying;  kr_loops_varying(lx, 2, &varying);
 *   if (kr_loops_invariant(lx, expr, &varying, &culprit)) ...   // expr can move before loop 2
 *
 * What is understood, and what is not (anything else is reported, never guessed):
 * - A `for` loop is canonical when its initializer sets one integer variable (`int i = A` or
 *   `i = A`), its condition compares that variable with a bound (`i < B`, `<=`, `>`, `>=`, `!=`,
 *   either operand order), and its update moves it by a stride (`++i`, `i++`, `--i`, `i--`,
 *   `i += C`, `i -= C`, `i = i + C`, `i = C + i`, `i = i - C`).
 * - Trip counts are constant when A, B and C are integer constant expressions over literals and
 *   names bound to constants the file shows: object-like `#define`s (defined once, outside any
 *   `#if`, never `#undef`ed) and `const`/`constexpr` integer variables with constant initializers
 *   at file scope or in the kernel (declared once). Template parameters are not constants here:
 *   their value depends on the instantiation, so trip counts over them are symbolic.
 * - Symbolic trip counts are C expression text over A, B and C, valid when the loop runs at all
 *   (the count is zero when the text would be negative). With a symbolic stride the stride is
 *   taken to point the way the condition needs, which any terminating loop satisfies.
 * - Scalar types come from declarations the analysis can see (parameters, locals, file-scope
 *   variables, macros, CUDA built-ins, casts, literals, math functions); a name declared more than
 *   once with different types, a template type parameter, or anything else unclear is
 *   KR_TY_UNKNOWN, and callers must treat unknown as "do not touch".
 *
 * Everything is allocated from the arena given to kr_loops_new; TSNode members are valid while
 * the tree is alive. Nothing here prints or exits. */
#ifndef KR_LOOPS_H
#define KR_LOOPS_H

#include "frontend/model.h"
#include "frontend/scope.h"
#include "frontend/types.h"

typedef struct KrLoops KrLoops;

KrLoops *kr_loops_new(const KrTree *tree, const KrKernel *kernel, KrArena *arena);
/* The same over a declaration table already built for this kernel (scope.h). */
KrLoops *kr_loops_new_in(const KrTree *tree, const KrKernel *kernel, KrScope *scope,
                         KrArena *arena);

/* ---- Integer constants (consteval.h) ---------------------------------------------------------- */
/* Evaluates an integer constant expression (see above) in 64-bit arithmetic; false when it is
 * not one, divides by zero or overflows. */
bool kr_loops_const(KrLoops *self, TSNode expr, long long *value);

/* ---- Scalar types (types.h) ------------------------------------------------------------------ */
KrType kr_loops_type(KrLoops *self, TSNode expr);
/* The declaration table the analysis reads (scope.h), for passes that ask it directly. */
KrScope *kr_loops_scope(KrLoops *self);

/* ---- Loops ---------------------------------------------------------------------------------- */
typedef enum { KR_CMP_LT, KR_CMP_LE, KR_CMP_GT, KR_CMP_GE, KR_CMP_NE } KrCmp;
typedef enum { KR_TRIP_UNKNOWN, KR_TRIP_CONST, KR_TRIP_SYMBOLIC } KrTripKind;

/* A place in the source and what is there, for reasons ("'i' is assigned at 12:9"). */
typedef struct KrWhere {
  bool found;
  uint32_t at;        /* byte offset */
  const char *what;   /* a short description naming the construct */
} KrWhere;

typedef struct KrLoopInfo {
  const KrLoop *loop;
  /* Canonical form. When false, `why` says what is not canonical, located at why_at. */
  bool canonical;
  const char *why;
  uint32_t why_at;
  const char *var;          /* the induction variable (also set for some non-canonical loops) */
  const char *var_type;     /* its declared type as written ("int", "unsigned"), or NULL */
  KrTyClass var_cls;
  bool var_declared;        /* declared by the initializer: `for (int i = …` */
  bool init_single;         /* the initializer declares or assigns nothing but the variable */
  TSNode init, bound, stride;   /* A, B, C; stride is null for ++/-- */
  KrCmp cmp;                /* normalised to `var CMP bound` */
  int dir;                  /* +1 when the update increases the variable, -1 when it decreases */
  bool init_const, bound_const, stride_const;
  long long init_v, bound_v, stride_v; /* stride_v is signed (−1 for i--) */
  /* Trip count: a number, or C text (trip_text is set for both), or unknown with trip_why. */
  KrTripKind trip_kind;
  long long trip;
  const char *trip_text;
  const char *trip_why;
  uint32_t trip_why_at;
  /* Body facts (the body only, not the loop header). */
  KrWhere var_modified;     /* assigned, incremented, address taken, bound to a reference,
                               passed where it could be modified, redeclared */
  KrWhere brk;              /* a `break` that leaves this loop (not one of a nested loop/switch) */
  KrWhere cont;             /* a `continue` of this loop */
  KrWhere ret;              /* a `return` */
  KrWhere jump;             /* a `goto`, a label, or a `case`/`default` of an enclosing switch */
} KrLoopInfo;

/* The analysis of kernel->loops.data[index] (computed once, then cached). */
const KrLoopInfo *kr_loops_info(KrLoops *self, size_t index);

/* ---- Loop invariance ------------------------------------------------------------------------ */
typedef struct KrNameSet {
  KrVec(const char *) names;
} KrNameSet;

bool kr_names_has(const KrNameSet *self, const char *name);

/* The variables whose value may differ between iterations of loop `index`, or that are not in
 * scope before it: everything assigned, incremented or declared anywhere in the loop statement
 * (header and body, nested loops and lambdas included), every variable whose address is taken or
 * that is bound to a non-const reference anywhere in the kernel, and every variable passed as a
 * bare argument to a function that could take it by reference, every variable a member function
 * is called on, and every word of a macro body that assigns when the macro is used there. */
void kr_loops_varying(KrLoops *self, size_t index, KrNameSet *out);

/* True when `expr` has the same value on every iteration of the loop `varying` was computed for:
 * it reads only literals, CUDA built-in indices (threadIdx, blockIdx, blockDim, gridDim,
 * warpSize), constants, and kernel parameters or locals not in `varying`, through arithmetic,
 * comparisons, casts, parentheses and the ?: operator. Memory reads (subscripts, `*p`, `->`),
 * calls and assignments are never invariant. On false, *culprit (if not NULL) is the first node
 * that is not. */
bool kr_loops_invariant(KrLoops *self, TSNode expr, const KrNameSet *varying, TSNode *culprit);

/* ---- Where text can go ---------------------------------------------------------------------- */
/* The byte where text meant to precede the loop statement can be inserted: the start of the first
 * of the `#pragma` lines directly above it, or of the loop's own line. *own_line is false when
 * other code precedes the loop on its line; the loop's start is returned then. */
uint32_t kr_loops_head(KrLoops *self, size_t index, bool *own_line);
/* True when the loop is a statement of a `{ … }` block (not the unbraced body of an if/for/…,
 * nor a statement after a case label), so a declaration can be put before it. */
bool kr_loops_in_block(KrLoops *self, size_t index);

/* True when the file #defines `name` (object-like or function-like, anywhere). */
bool kr_loops_is_macro(KrLoops *self, const char *name);
/* True when `name` occurs as an identifier (of any kind) or a macro name anywhere in the file. */
bool kr_loops_name_used(KrLoops *self, const char *name);

#endif
