/* runtime/spec.h: problem specs. A spec is a Lua file (run in the recipe sandbox) that returns a
 * table describing one problem: the source and its kernels, the size symbols, the buffers, the
 * launches and the tolerance. docs/problems.md has the format; examples/<name>/problem.lua are
 * examples of it. */
#ifndef KR_SPEC_H
#define KR_SPEC_H

#include "frontend/kr.h"

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
  const char *text;    /* buffer name or integer expression */
  double number;       /* KR_ARG_NUMBER: a literal (floats for float parameters) */
} KrArgSpec;

typedef struct KrLaunchSpec {
  const char *kernel;  /* as the launch names it: "saxpy", "tk<float, 128>" */
  const char *grid[3], *block[3], *shmem;
  KrVec(KrArgSpec) args;
} KrLaunchSpec;

typedef struct KrSpec {
  const char *path;    /* of the spec */
  const char *name;
  const char *source;  /* path of the .cu, resolved against the spec's folder */
  KrBuildFlags build;  /* `include` (resolved against the spec's folder) and `defines`; source_dir:
                        * the .cu's folder, for every candidate made from it too */
  KrVec(KrSizeSym) sizes;
  KrVec(KrBufferSpec) buffers;
  KrVec(KrLaunchSpec) launches;
  double rtol;         /* relative L2 tolerance; default 1e-6 */
  double atol;         /* absolute tolerance per element, for near-zero references; default 0 */
  const char *flops, *bytes;  /* expressions for the floors, or NULL */
  uint32_t seeds;      /* how many random input sets per test size; default 3 */
} KrSpec;

/* Loads and checks a spec: every expression's symbols are defined, counts are positive at every
 * test size, kernel names exist in the source, argument lists match the kernels' parameter
 * counts, every buffer's dtype matches the pointee of the parameter it is passed to, and no table
 * holds a field the format does not know (a near miss is named: "did you mean 'tolerance'?"). Errors name the spec file and the field: "problem.lua: buffers[2] 'y': count 'n*m':
 * undefined symbol 'm' (symbols: n)". */
KrStatus kr_spec_load(const char *path, KrArena *arena, KrSpec **out, KrDiags *diags);
/* The same with the command line's build flags (-I, --define) added after the spec's `include` and
 * `defines` (its defines replace the spec's of the same name); extra may be NULL. */
KrStatus kr_spec_load_with(const char *path, const KrBuildFlags *extra, KrArena *arena, KrSpec **out, KrDiags *diags);

/* The number of test cases (test sizes zipped: the i-th case takes each symbol's i-th test value,
 * cycling the shorter lists) and their values. */
size_t kr_spec_ncases(const KrSpec *s);
/* Values of the size symbols for case i (or the benchmark sizes when i == SIZE_MAX). */
void kr_spec_case(const KrSpec *s, size_t i, int64_t *values);

size_t kr_dtype_size(KrDtype t);
const char *kr_dtype_name(KrDtype t);

#endif
