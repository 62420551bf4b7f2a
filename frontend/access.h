/* frontend/access.h: read/write sets per pointer parameter of a kernel.
 *
 * For every pointer parameter, every place the kernel reads or writes the memory it points to,
 * and whether the analysis is *sure* it has seen them all. Pointers are followed through
 *   - aliases: `float *p = x + 4; p[i] = …`, `auto q = x; *q = …`, `q = x;` (any local or
 *     parameter that is given a value derived from x), and references to elements
 *     (`float &r = x[i]; r = …`);
 *   - pointer arithmetic and moves of the pointer itself (`x + n`, `x++`, `x += n`, `&x[i]`,
 *     `c ? x : y`, `(x)`, `a, x`);
 *   - casts (`((float4 *)x)[i] = …`, `reinterpret_cast<float4 *>(x)`, static_cast, const_cast);
 *   - calls: atomics (`atomicAdd(&x[i], v)` reads and writes), `__ldg`/`__ldcs`… (read),
 *     `__stcs`… (write), memcpy/memset/__pipeline_memcpy_async, and `__device__` helpers defined
 *     in the same file, which are analysed in turn (up to 4 calls deep);
 *   - compound assignment and increments of an element (`x[i] += v`, `++x[i]`: read and write).
 * Uses the analysis cannot follow make the pointer *unsure*, with the first such use named in
 * `unsure_why` (a pointer converted to an integer, other than for an alignment test such as
 * `reinterpret_cast<unsigned long long>(x) % 16 == 0`; stored into memory or an initializer list,
 * returned, passed to a function that is not defined here or to a lambda, used in inline asm,
 * a pointer to pointers). Passes refuse unsure pointers and quote that reason.
 *
 * Reference parameters of unseen functions are a known limit: an element passed by value to a
 * function krewrite cannot see (`foo(x[i])`) is counted as a read and makes the pointer unsure,
 * because C++ may bind it to a non-const reference. Well-known CUDA math functions and intrinsics
 * take values and are counted as plain reads.
 *
 * Everything is allocated from the arena given to kr_access_new; TSNodes are valid while the
 * tree lives. */
#ifndef KR_ACCESS_H
#define KR_ACCESS_H

#include "frontend/model.h"

typedef enum { KR_ACCESS_READ = 1, KR_ACCESS_WRITE = 2 } KrAccessKind;

typedef struct KrAccessSite {
  unsigned kind;          /* KR_ACCESS_READ and/or KR_ACCESS_WRITE */
  TSNode node;            /* the access: the element (`x[i]`, `*p`, `p->f`, `x[i].y`) or the
                             call that reads/writes through the pointer (`atomicAdd(&x[i], v)`,
                             `helper(x)`) */
  TSNode elem;            /* the element expression itself (subscript_expression or `*` pointer
                             expression) for a direct load or store; null for calls */
  bool direct;            /* the pointer at the access is the parameter's own name: `x[i]` */
  const char *via;        /* how the pointer reached the access when not direct: "alias 'p'
                             (4:9)", "cast to 'float4 *'", "helper 'f' (writes at 3:5)";
                             NULL when direct */
  const char *elem_type;  /* the pointee type at the access ("float", "float4"), NULL unknown */
  uint32_t line, col;     /* of node, 1-based */
} KrAccessSite;

typedef struct KrPtrAccess {
  const KrParam *param;
  bool is_volatile;         /* the pointee is volatile (`volatile float *x`) */
  KrVec(KrAccessSite) sites; /* in source order */
  size_t nreads, nwrites;   /* sites with READ, sites with WRITE */
  bool sure;                /* every use of the pointer and its aliases was understood */
  const char *unsure_why;   /* the first use that was not, with its location; NULL when sure */
  uint32_t unsure_at;       /* byte offset of that use */
  bool moved;               /* the parameter itself is reassigned (`x += n`, `x++`, `x = y`) */
  uint32_t moved_at;        /* byte offset of the first such change */
  size_t naliases;          /* variables that receive a pointer derived from it */
  /* A use that needs a mutable pointee, so `const` cannot be added to the parameter's type: a
   * write, or an alias, cast or helper parameter spelled with a non-const pointee type. */
  const char *mutable_why;  /* NULL: const can be added */
  uint32_t mutable_at;
} KrPtrAccess;

typedef struct KrAccess {
  const KrKernel *kernel;
  KrVec(KrPtrAccess) ptrs;  /* one per pointer parameter, in parameter order */
} KrAccess;

/* Analyses kernel k of the parsed file `tree`. Never NULL. */
KrAccess *kr_access_new(const KrTree *tree, const KrKernel *k, KrArena *arena);
/* The entry of a pointer parameter by name, or NULL (not a parameter, or not a pointer). */
const KrPtrAccess *kr_access_find(const KrAccess *self, const char *name);
/* The first site that writes, or NULL. */
const KrAccessSite *kr_access_first_write(const KrPtrAccess *p);
/* True for the CUDA math functions and intrinsics that take all their arguments by value (expf,
 * fmaxf, __expf, __float2half, make_float4, atomicAdd's value operands, …): an argument passed
 * to them is only read. Functions of the file itself are not covered: look at their parameters. */
bool kr_access_value_function(const char *name);
/* "x, y, z": the pointer parameters' names, for messages. "" when there are none. */
const char *kr_access_names(const KrAccess *self, KrArena *arena);

#endif
