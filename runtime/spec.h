/* runtime/spec.h: problem specs. A spec is a Lua file (run in the recipe sandbox) that returns a
 * table describing one problem: the source and its kernels, the size symbols, the buffers, the
 * launches and the tolerance. docs/problems.md has the format; examples/<name>/problem.lua are
 * examples of it. */
#ifndef KR_SPEC_H
#define KR_SPEC_H

#include "base/kr.h"

typedef enum { KR_DT_F32, KR_DT_F16, KR_DT_BF16, KR_DT_I32, KR_DT_I64 } KrDtype;
typedef enum { KR_ROLE_INPUT, KR_ROLE_OUTPUT, KR_ROLE_INOUT, KR_ROLE_TEMP } KrRole;
typedef enum {
  KR_FILL_UNIFORM,     /* a, b: uniform in [a, b) */
  KR_FILL_NORMAL,      /* a, b: mean, standard deviation */
  KR_FILL_INTS,        /* a, b: integers uniform in [a, b] */
  KR_FILL_CSR_ROWPTR,  /* row offsets of a CSR matrix: count rows + 1; nnz = expression total */
  KR_FILL_CSR_COLIND,  /* sorted, distinct column indices per row, in [0, cols) */
  KR_FILL_ZERO,        /* zeros (temp buffers and accumulators) */
} KrFillKind;

typedef struct KrFill {
  KrFillKind kind;
  double a, b;
  const char *cols;    /* CSR: the column count expression */
  const char *rowptr;  /* CSR_COLIND: the rowptr buffer it follows */
  const char *nnz;     /* CSR_ROWPTR: the total number of non-zeros (an expression) */
} KrFill;

typedef struct KrSizeSym {
  const char *name;
  int64_t bench;
  KrVec(int64_t) tests;
} KrSizeSym;

typedef struct KrBufferSpec {
  const char *name;
  KrDtype dtype;
  const char *count;   /* expression over the size symbols */
  KrRole role;
  KrFill fill;
} KrBufferSpec;

typedef enum { KR_ARG_BUFFER, KR_ARG_EXPR, KR_ARG_NUMBER } KrArgKind;

typedef struct KrArgSpec {
  KrArgKind kind;
  const char *text;    /* buffer name, or an expression (runtime/expr.h): an integer one for an
                        * integer parameter, either kind for a float parameter */
  double number;       /* KR_ARG_NUMBER: a literal (floats for float parameters) */
  const char *offset;  /* KR_ARG_BUFFER, { buf = "y", offset = "1" }: the pointer passed is this
                        * many elements past the buffer's start (an integer expression); NULL: 0 */
} KrArgSpec;

typedef struct KrLaunchSpec {
  const char *kernel;  /* as the launch names it: "saxpy", "tk<float, 128>" */
  const char *grid[3], *block[3], *shmem;
  KrVec(KrArgSpec) args;
} KrLaunchSpec;

typedef KrVec(KrLaunchSpec) KrLaunchList;

/* `entry = "launch_x"` (or { name = "launch_x", args = { ... } }): a host function of the .cu that
 * krewrite calls instead of a launch list; the kernels it launches (and the functions it calls
 * launch) run on the emulator with the checks of a spec launch (docs/problems.md, "Host entry
 * points"). `call` is the call as a launch: kernel = the function's name, one argument per
 * parameter (given, or matched by name: a size symbol, a buffer, 0 for a cudaStream_t); `fn` holds
 * the function's parameters, read as a kernel's would be (only the parameters are meaningful). */
typedef struct KrEntrySpec {
  const char *name;
  KrLaunchSpec call;
  const struct KrKernel *fn;
} KrEntrySpec;

typedef struct KrSpec {
  const char *path;    /* of the spec */
  const char *name;
  const char *source;  /* path of the .cu, resolved against the spec's folder */
  KrBuildFlags build;  /* `include` (resolved against the spec's folder) and `defines`; source_dir:
                        * the .cu's folder, for every candidate made from it too */
  KrVec(KrSizeSym) sizes;
  KrVec(KrBufferSpec) buffers;
  const KrEntrySpec *entry;  /* `entry` given: the host function run instead of launches (then empty) */
  KrLaunchList launches;  /* `launches` given as a list: that list; given as a function of the
                           * sizes: its list at the benchmark sizes (kr_spec_launches gives any case's) */
  const char *text;    /* the spec's Lua source, run again for a `launches` function; NULL otherwise */
  size_t text_len;
  double rtol;         /* relative L2 tolerance; default 1e-6 */
  double atol;         /* absolute tolerance per element, for near-zero references; default 0 */
  const char *flops, *bytes;  /* expressions for the floors, or NULL */
  uint32_t seeds;      /* how many random input sets per test size; default 3 */
} KrSpec;

/* Loads and checks a spec: every expression's symbols are defined, counts are not negative at
 * any test size and positive at the benchmark sizes, kernel names exist in the source, argument
 * lists match the kernels' parameters (buffers to pointers, integer expressions to integer
 * parameters), every buffer's dtype matches the pointee of the parameter it is passed to, and no
 * table holds a field the format does not know (a near miss is named: "did you mean
 * 'tolerance'?"). A `launches` function is called for every test case and the benchmark sizes,
 * and each list is checked at its sizes. Errors name the spec file and the field: "problem.lua:
 * buffers[2] 'y': count 'n*m': undefined symbol 'm' at column 3 (symbols: n)". */
KrStatus kr_spec_load(const char *path, KrArena *arena, KrSpec **out, KrDiags *diags);
/* The same with the command line's build flags (-I, --define) added after the spec's `include` and
 * `defines` (its defines replace the spec's of the same name); extra may be NULL. */
KrStatus kr_spec_load_with(const char *path, const KrBuildFlags *extra, KrArena *arena, KrSpec **out, KrDiags *diags);

/* The launches of the case whose size values are `sizes` (kr_spec_case's order). A spec whose
 * `launches` is a list gives that list, the same at every size; one whose `launches` is a Lua
 * function gets it called with the sizes ({ n = 7, ... }): the spec's source is run again in a
 * fresh sandbox (no Lua state outlives the load, so any thread may ask), and the list it returns
 * is read into `arena` and checked as the load checks a list's shape. At the benchmark sizes it
 * is s->launches. Every kernel a case launches must be one the benchmark sizes' list launches
 * (the emulator module and the passes' launch changes are made from that list). Errors (the
 * function's own, with the spec's path and line, or the list's) name the sizes. */
KrStatus kr_spec_launches(const KrSpec *s, const int64_t *sizes, KrArena *arena, const KrLaunchList **out,
                          KrDiags *diags);

/* The number of test cases (test sizes zipped: the i-th case takes each symbol's i-th test value,
 * cycling the shorter lists) and their values. */
size_t kr_spec_ncases(const KrSpec *s);
/* Values of the size symbols for case i (or the benchmark sizes when i == SIZE_MAX). */
void kr_spec_case(const KrSpec *s, size_t i, int64_t *values);

/* What a scalar kernel parameter takes, from its type's name (a template parameter bound by the
 * launch's template arguments: "tk<float, 128>"). Names it does not know (typedefs) count as int.
 * Runtime-private: the loader's argument checks and the packing (prun.c) share it. */
typedef enum {
  KR_SCALAR_F32, KR_SCALAR_F64, KR_SCALAR_F16, KR_SCALAR_BF16,
  KR_SCALAR_I8, KR_SCALAR_I16, KR_SCALAR_I32, KR_SCALAR_I64,
} KrScalarKind;
struct KrKernel;
KrScalarKind kr__param_scalar(const struct KrKernel *k, size_t j, const char *launch_kernel, KrArena *a);
static inline bool kr__scalar_is_float(KrScalarKind t) { return t <= KR_SCALAR_BF16; }

/* The host function `name` of a parsed .cu (not __global__ or __device__, not a template), with its
 * parameters read as a kernel's (model.h's KrParam) into *fn from `arena`; KR_ERR with the reason
 * in *why when the file has no such host function. Runtime-private: the spec's check and each
 * side's build (prun.c) share it. */
struct KrTree;
KrStatus kr__entry_fn(const struct KrTree *t, const char *name, KrArena *arena, const struct KrKernel **fn,
                      const char **why);

size_t kr_dtype_size(KrDtype t);
const char *kr_dtype_name(KrDtype t);

#endif
