/* frontend/model.h: the kernel model of one parsed file: its __global__ functions (parameters,
 * __shared__ declarations, loops) and the <<<…>>> launch sites in host code. Everything is
 * allocated from the arena given to kr_model_new; TSNode members are valid while the KrTree
 * they came from is alive. */
#ifndef KR_MODEL_H
#define KR_MODEL_H

#include "frontend/tree.h"

typedef struct KrSpan {
  uint32_t start, end; /* byte offsets, end exclusive */
} KrSpan;

typedef struct KrParam {
  const char *name;     /* "" when unnamed */
  const char *base;     /* the type without qualifiers or declarators: "float", "T", "half2" */
  const char *type;     /* normalised full type: "const float *__restrict__" */
  uint32_t index;
  int pointer_depth;
  bool is_const;        /* the pointee (or the value) is const */
  bool is_const_ptr;    /* the outermost pointer itself is const (float *const p) */
  bool is_restrict;     /* __restrict__ on the outermost pointer */
  bool is_reference;
  uint32_t line, col;
  KrSpan span;          /* the whole parameter declaration */
  TSNode node;
} KrParam;

typedef struct KrShared {
  const char *name;
  const char *type;     /* element type: "float" */
  const char *dims;     /* "[32][33]", "[]" for extern arrays, "" for scalars */
  bool is_extern;       /* extern __shared__: dynamic shared memory */
  uint32_t line, col;
  KrSpan span;
  TSNode node;
} KrShared;

typedef enum { KR_LOOP_FOR, KR_LOOP_WHILE, KR_LOOP_DO, KR_LOOP_RANGE_FOR } KrLoopKind;

typedef struct KrLoop {
  KrLoopKind kind;
  uint32_t depth;       /* 0 for loops not inside another loop of the same kernel */
  int parent;           /* index of the enclosing loop, -1 at depth 0 */
  const char *var;      /* induction variable of a for loop, or NULL */
  const char *init;     /* the three clauses' text, NULL when absent */
  const char *cond;
  const char *step;
  const char *pragma;   /* "unroll 4" when a #pragma directly precedes the loop, else NULL */
  uint32_t line, col;
  KrSpan span;
  TSNode node;
} KrLoop;

typedef struct KrKernel {
  const char *name;
  const char *qualified_name;  /* with enclosing namespaces: "ns::k" */
  bool extern_c;
  bool is_template;            /* under a template header: a template, or (template_params "") an explicit
                                * specialization, `template <> __global__ void k<float>(…)` */
  const char *template_params; /* "typename T, int BS" or NULL */
  const char *launch_bounds;   /* "256, 2" or NULL */
  const char *cluster_dims;    /* __cluster_dims__(…)'s arguments, "4, 1, 1", or NULL */
  KrVec(KrParam) params;
  KrVec(KrShared) shared;
  KrVec(KrLoop) loops;
  uint32_t line, col;
  KrSpan span;                 /* the function definition (with its template header) */
  TSNode node;                 /* function_definition */
  TSNode body;                 /* compound_statement */
} KrKernel;

typedef struct KrLaunch {
  const char *kernel;          /* the callee as written: "k", "ns::k" */
  const char *template_args;   /* "float, 128" or NULL */
  const char *grid, *block;
  const char *shmem, *stream;  /* NULL when not given */
  KrVec(const char *) args;
  const char *in_function;     /* the enclosing function's name, or NULL */
  uint32_t line, col;
  KrSpan span;                 /* the call expression */
  TSNode node;
} KrLaunch;

typedef struct KrModel {
  const KrTree *tree;
  KrVec(KrKernel) kernels;
  KrVec(KrLaunch) launches;
} KrModel;

KrModel *kr_model_new(const KrTree *tree, KrArena *arena);
/* The bodies of the host functions (neither __global__, __device__ nor constexpr; at file scope, in
 * namespaces, extern "C" blocks, templates and #if branches), but those named in keep: what the
 * kernels never need; with them, the explicit instantiations of the host templates whose bodies go
 * (`template void launch<float>(…);`, which would otherwise instantiate a declaration). */
void kr_model_host_bodies(const KrTree *tree, const char *const *keep, size_t nkeep, KrArena *arena, KrSpan **spans,
                          size_t *n);
/* Whether node n of the tree is in device code: inside a __global__ or __device__ function or a
 * __device__ lambda. */
bool kr_model_in_device(const KrTree *tree, TSNode n);
/* Whether launch l is in host code that an entry runs: not in device code, and not in one of the
 * host bodies `drop` that kr_model_host_bodies leaves out for the entry. */
bool kr_model_launch_kept(const KrTree *tree, const KrLaunch *l, const KrSpan *drop, size_t ndrop);
/* text (the tree's) with those bodies replaced by `;` and blanks, lines kept: a host function becomes
 * a declaration, so that a host body nvcc or the emulator would reject (a removed CUDA API) never
 * stops the kernels from building, and both build the same code. */
char *kr_model_drop_host_bodies(const KrTree *tree, const char *text, size_t len, const char *const *keep, size_t nkeep,
                                KrArena *arena);
/* Whether k is a template still generic over its parameters (not an explicit specialization). */
bool kr_kernel_generic(const KrKernel *k);
/* Finds a kernel by plain or qualified name; NULL when there is none. */
const KrKernel *kr_model_find(const KrModel *self, const char *name);
/* The kernel a launch's callee names ("k", "ns::k", "tk<float, 128>"): the explicit specialization for
 * those template arguments where the file writes one (its name is "tk<float, 128>"; blanks are not
 * compared), else the kernel named without them; NULL when there is none. */
const KrKernel *kr_model_find_launch(const KrModel *self, const char *callee);
/* A comma-separated list of the kernel names, for "no kernel 'x' (kernels here: a, b)". */
const char *kr_model_kernel_names(const KrModel *self, KrArena *arena);

void kr_model_text(const KrModel *self, KrBuf *out);
void kr_model_json(const KrModel *self, KrBuf *out);

#endif
