/* passes/pass.h: the pass interface. A pass reads the tree, the kernel model and the analyses of
 * one kernel and returns edits (byte ranges and replacement text); the driver (passes/driver.c)
 * validates parameters, applies the edits, re-parses, and records what happened for the audit
 * trail. A pass never prints, never exits, allocates from cx->arena and reports through
 * cx->diag. See DESIGN.md (Passes) and STYLE.md (the pass file). */
#ifndef KR_PASS_H
#define KR_PASS_H

#include "frontend/model.h"
#include "frontend/rows.h"
#include "passes/schedule.h"

/* ---- Parameters ------------------------------------------------------------------------------- */
typedef enum {
  KR_PARAM_INT,      /* an integer */
  KR_PARAM_BOOL,     /* true/false */
  KR_PARAM_STRING,   /* one string; with `choices`, one of them */
  KR_PARAM_NAMES,    /* a list of identifiers (Lua: {"x", "w"} or a single "x") */
  KR_PARAM_INTS,     /* a list of integers (Lua: {128, 64, 32} or a single number) */
} KrParamType;

typedef struct KrParamSpec {
  const char *name;
  KrParamType type;
  const char *def;      /* default, in recipe syntax ("4", "true", "all", "{}"); NULL: required */
  const char *choices;  /* for strings and ints: "fp16|bf16|tf32", "2|4"; NULL: any */
  long long min, max;   /* for ints: the inclusive range when min < max */
  const char *doc;
} KrParamSpec;

typedef struct KrValue {
  KrParamType type;
  bool given;           /* set by the recipe (false: the default) */
  long long i;          /* INT, and BOOL as 0/1 */
  const char *s;        /* STRING */
  KrVec(const char *) names;
  KrVec(long long) ints;
} KrValue;

/* ---- Precision and launch effects ------------------------------------------------------------- */
/* KR_PRECISION_PARAM: a pass whose parameters decide (tensor_core's precision); it sets
 * KrPassCtx.precision, and a record is always exact or lowers. */
typedef enum { KR_PRECISION_EXACT, KR_PRECISION_LOWERS, KR_PRECISION_PARAM } KrPrecision;

/* "exact", "lowers" or "by its parameters", for catalogues and records. */
const char *kr_precision_name(KrPrecision p);

/* How a pass changes the launch, as expressions (runtime/expr.h) over the problem's symbols and
 * the old values (written `grid.x`, `grid.y`, `block.x`, …, `shmem`). `grid` and `block` are
 * either one expression (the new x; y and z unchanged) or `dim3(x, y, z)`. NULL members are
 * unchanged. `workspace` (NULL: none) is the size in bytes, over `param.NAME` and constants, of a
 * scratch buffer the kernel takes as one more, trailing, pointer argument (the pass appends the
 * parameter): whoever launches the kernel allocates it once, zeroed, and passes the same buffer
 * to every launch; the kernel leaves it as it needs to find it (split_k's arrival counters are
 * back at zero when a launch ends). `args` (NULL: none) are values of the original launch the
 * rewritten kernel still needs once its launch changed (the row nest's element form: the old
 * `grid.x` and `block.x`): expressions over the same names as `grid`, the old values among them,
 * separated by "; ", that the kernel takes as as many trailing int parameters (the pass appends
 * them, defaulted), after the spec's arguments and before a workspace. `drops` (NULL: none) names
 * another kernel whose launches leave the program because this kernel now does their work (fuse).
 * `borrows` (NULL: none) are parameters of the dropped kernel, "; "-separated, that this kernel takes
 * right after the spec's arguments (before `args`' ints): each launch passes them what the dropped
 * kernel's next launch after it passes (the pooled output, its sizes). `fills` (NULL: none) are pointer
 * parameters of this kernel, "; "-separated, whose buffers (from the pointer to the buffer's end) are
 * filled with all-ones bytes before each launch, by a launch of KR_FILL_KERNEL, which the pass adds to
 * the file: a float so filled is a NaN that every atomic maximum of a number replaces. */
typedef struct KrLaunchChange {
  const char *grid, *block, *shmem;
  const char *workspace;
  const char *args;
  const char *drops;
  const char *borrows;
  const char *fills;
  const char *lender;   /* set by the runtime on the launches of a kernel with `borrows`: the dropped
                         * kernel whose launches lend them */
} KrLaunchChange;

/* The kernel that fills a buffer for `fills` (unsigned char *p, long long elements, int element bytes), as
 * the pass that asks for it appends it to the file. */
#define KR_FILL_KERNEL "kr_fill_ones"


/* How many "; "-separated expressions `args` (KrLaunchChange.args) holds, and the i-th of them. */
size_t kr_launch_args_count(const char *args);
const char *kr_launch_arg(const char *args, size_t i, KrArena *arena);

/* ---- Alignment --------------------------------------------------------------------------------- */
/* A pointer parameter the rewritten kernel reads or writes in units wider than its elements (a
 * float read as float4), which the GPU needs aligned to the unit: cudaMalloc's pointers are, a
 * program's x + 1 is not. The verifier runs each such parameter one element off an aligned
 * address too (runtime/verify.c, "Offset cases"): a kernel that checks the alignment at run time
 * and falls back passes there, one that assumes it fails, naming the parameter. */
typedef struct KrAligned {
  const char *param;        /* the kernel's parameter */
  int bytes;                /* the alignment its wide accesses need */
} KrAligned;

/* ---- Search facts ----------------------------------------------------------------------------- */
/* What the built-in proposer (search/heuristic.h) knows of a pass: why it would help, which
 * parameterisations to try, and how early to try it for each bottleneck. A pass with no reason
 * is never proposed on its own (fuse, warp_reduce, split_rows, row_cache: the search reaches
 * those through a schedule family's grid, or not at all). */
enum { KR_SEARCH_POINTS = 5 };   /* the most parameterisations a pass is tried with */

/* The bottlenecks the proposer orders passes by (search/profile.h's classes, or the arithmetic
 * intensity against the ridge point). */
typedef enum { KR_SEARCH_MEMORY, KR_SEARCH_COMPUTE, KR_SEARCH_LATENCY, KR_SEARCH_BOUNDS } KrSearchBound;

/* How the proposer offers a pass. A family's grid is a whole schedule of several passes that
 * search/heuristic.c builds: the contraction's (tile, register_tile, double_buffer, and split_k where
 * the tiles leave SMs idle), the tensor cores' (tile, tensor_core, double_buffer) or the row
 * reduction's (block_reduce, warp_reduce, split_rows and the fusions). */
typedef enum {
  KR_SEARCH_ALONE,      /* one idea, with a variant for each point that applies */
  KR_SEARCH_FAMILY,     /* stands for its family's grid (KrSearchFacts.grid) in the order (tile,
                         * tensor_core, block_reduce); where a contraction's grid is not offered,
                         * tried alone */
  KR_SEARCH_IN_FAMILY,  /* a step of its family's grid, offered alone only where no grid was and,
                         * for a row reduction's, on a seed that lays out the rows already */
} KrSearchRole;

/* The grid a family's pass stands for. */
typedef enum { KR_GRID_NONE, KR_GRID_CONTRACTION, KR_GRID_TENSOR, KR_GRID_ROWS } KrSearchGrid;

typedef struct KrSearchPoint {
  const char *label;    /* "width=4"; "defaults" for the pass's defaults */
  const char *params;   /* the Lua table a recipe passes to k:apply: "{ width = 4 }" */
} KrSearchPoint;

typedef struct KrSearchFacts {
  const char *reason;   /* the idea's reason, %s the kernel; NULL: never proposed */
  KrSearchPoint points[KR_SEARCH_POINTS];   /* the most promising first; the rest NULL */
  /* Its place in the order of each bottleneck, smallest first (spaced by ten, so that a new pass
   * can go between two); 0: not proposed for that bottleneck. No two passes share a rank. */
  int rank[KR_SEARCH_BOUNDS];
  KrSearchRole role;
  KrSearchGrid grid;    /* KR_SEARCH_FAMILY: which grid it stands for */
  bool few_tiles;       /* only where the output's tiles leave SMs idle and each output's reduction
                         * is long (split_k) */
  bool prepares;        /* an exact rewrite the nest needs before it reads the kernel (expand_macros,
                         * inline_pointers): where it applies, the proposer applies it to the seed
                         * first, in the registry's order, and starts the round's ideas from there */
} KrSearchFacts;

/* ---- Edits ------------------------------------------------------------------------------------ */
typedef struct KrEdit {
  uint32_t start, end;  /* byte range of the current text to replace (start == end: insert) */
  const char *text;     /* as it goes in: passes indent it through the code builder (build.h) */
} KrEdit;

/* ---- The analyses of the kernel, shared by check and apply ------------------------------------ */
typedef struct KrScope KrScope;
typedef struct KrLoops KrLoops;
typedef struct KrAffineCtx KrAffineCtx;
typedef struct KrAccess KrAccess;
typedef struct KrUniform KrUniform;

/* Built lazily, once per pass run, from cx->arena, by the kr_pass_<analysis>(cx) accessors
 * below; NULL until asked for. A pass reads them and never changes them. */
typedef struct KrAnalyses {
  KrScope *scope;
  KrLoops *loops;
  KrAffineCtx *affine;
  KrAccess *access;
  KrUniform *uniform;
  const KrNest *nest;       /* kr_pass_nest: the kernel lifted (NULL with nest_why when it is not) */
  const char *nest_why;
  uint32_t nest_at;         /* where nest_why points: the construct the lift names, else the kernel */
  bool nest_tried;
} KrAnalyses;

/* ---- The context a pass runs in --------------------------------------------------------------- */
typedef struct KrPass KrPass;

typedef struct KrPassCtx {
  const KrPass *pass;
  const KrSource *src;
  const KrTree *tree;
  const KrModel *model;
  const KrKernel *kernel;
  const char *named;        /* the kernel as the recipe names it: "mm", or with the template arguments of
                             * one instantiation, "mm<float>" (kernel is then that explicit specialization,
                             * or the template where the file writes none) */
  const KrValue *args;      /* one per entry of pass->params, validated, defaults filled in */
  KrArena *arena;           /* scratch for this pass; freed after the record is taken */
  KrDiags *diag;
  KrVec(KrEdit) edits;
  KrVec(const char *) assumptions;
  KrVec(KrAligned) aligned; /* through kr_pass_assume_aligned */
  KrLaunchChange launch;
  const char *tolerance;    /* a lowering pass may state the tolerance it needs (e.g. "1e-5") */
  KrPrecision precision;    /* the pass's, or (KR_PRECISION_PARAM) what its parameters made it */
  bool allow_lowering;      /* the recipe opted in (kr.allow_lowering()) */
  /* Schedule passes only (KrPass.schedule): the kernel's nest as first lifted (from nest_tree,
   * the document's text when the first schedule pass ran on it) and its schedule so far, which
   * the pass updates; the driver keeps it when the pass applies. */
  const KrNest *nest;
  const KrTree *nest_tree;
  KrSchedule *schedule;
  /* Reduction passes (KrPass.rows): the kernel's row nest as first lifted (frontend/rows.h), from
   * nest_tree; nest is then NULL. */
  const KrRows *rows;
  KrAnalyses an;            /* through kr_pass_scope/loops/affine/access/uniform only */
} KrPassCtx;

struct KrPass {
  const char *name;         /* file name, registry name and Lua name are the same word */
  const char *summary;      /* one line */
  const char *doc;          /* the header comment's content: what, before/after, requires */
  const KrParamSpec *params;
  size_t nparams;
  KrPrecision precision;
  const char *tolerance;    /* for KR_PRECISION_LOWERS: relative L2 error it needs, e.g. "1e-5" */
  const char *assumptions;  /* static assumptions, recorded whenever the pass applies */
  bool schedule;            /* a schedule pass: regenerates the kernel from its nest (schedule.h) */
  bool rows;                /* a schedule pass over the row nest (frontend/rows.h, reduction.h) */
  bool before_schedule;     /* a text pass whose output the nest still reads: on a kernel no schedule pass
                             * has touched yet, schedule passes may follow it (fuse) */
  bool reassociates;        /* changes the order of a sum (exact in the verifier's sense; a 16-bit
                             * output is then held as runtime/verify.c's buffer_rtol says) */
  KrSearchFacts search;     /* for the built-in proposer; zeros: never proposed on its own */
  /* Is the pass applicable to cx->kernel with cx->args? KR_OK, or KR_SKIP with a reason added
   * to cx->diag through kr_pass_skip (naming the construct and its location). */
  KrStatus (*check)(KrPassCtx *cx);
  /* Produces edits (kr_pass_replace, or the code builder of passes/build.h). Called only after
   * check returned KR_OK. KR_SKIP with a reason is allowed when applicability is only known while
   * rewriting. */
  KrStatus (*apply)(KrPassCtx *cx);
};

/* ---- Helpers for pass files (passes/pass.c) --------------------------------------------------- */
void kr_pass_replace(KrPassCtx *cx, uint32_t start, uint32_t end, const char *text);
void kr_pass_replace_node(KrPassCtx *cx, TSNode n, const char *text);
void kr_pass_assume(KrPassCtx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records that the rewritten kernel accesses pointer parameter `param` in `bytes`-byte units
 * (KrAligned); the pass states in an assumption whether it checks the alignment at run time. */
void kr_pass_assume_aligned(KrPassCtx *cx, const char *param, int bytes);
/* Records why the pass does not apply, located at byte `at`, and returns KR_SKIP. */
KrStatus kr_pass_skip(KrPassCtx *cx, uint32_t at, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* Records the value a pass settled for a string parameter the recipe left to its default, from what
 * it read (specialize's `args`, from the kernel's name): the record then gives it as given, so that
 * the audit log shows it and replay passes it back. */
void kr_pass_settle_string(KrPassCtx *cx, const char *name, const char *value);
/* Parameter access by name: a name the pass does not declare stops krewrite with an internal error
 * (never NULL); unit.pass_args checks every name the passes read against their declarations. */
const KrValue *kr_pass_arg(const KrPassCtx *cx, const char *name);
/* The analyses of cx->kernel (frontend/scope.h, loops.h, affine.h, access.h, uniform.h), built
 * on first use and shared by check and apply; the loop analysis reads the same scope. */
KrScope *kr_pass_scope(KrPassCtx *cx);
KrLoops *kr_pass_loops(KrPassCtx *cx);
KrAffineCtx *kr_pass_affine(KrPassCtx *cx);
KrAccess *kr_pass_access(KrPassCtx *cx);
KrUniform *kr_pass_uniform(KrPassCtx *cx);
/* The current kernel lifted into its nest (frontend/nest.h), once per pass run; NULL, with the
 * located reason in *why, when it cannot be lifted. (Schedule passes get the nest as first lifted
 * in cx->nest instead.) */
const KrNest *kr_pass_nest(KrPassCtx *cx, const char **why);
/* Removes statement n: its bytes, with its whole line when nothing else is on that line. */
void kr_pass_remove_statement(KrPassCtx *cx, TSNode n);
/* Text of a node, and the indentation (leading blanks) of the line holding byte `at`. */
char *kr_pass_text(const KrPassCtx *cx, TSNode n);
const char *kr_pass_indent_at(const KrPassCtx *cx, uint32_t at);
/* True when `name` is in a NAMES argument (or the argument is empty, meaning "all"). */
bool kr_pass_names_has(const KrValue *v, const char *name);

/* ---- Registry (passes/registry.c, from passes.def) -------------------------------------------- */
const KrPass *kr_pass_find(const char *name);
size_t kr_pass_count(void);
const KrPass *kr_pass_at(size_t i);
const char *kr_pass_names(KrArena *arena);        /* "a, b, c" */
void kr_pass_describe(const KrPass *p, KrBuf *out); /* `krewrite passes NAME` */
const char *kr_param_type_name(KrParamType t);
/* The name of the NULL-terminated `known` closest to `s` by edit distance, when it is close
 * enough to be a slip ("vectorise" -> "vectorize", "tolerence" -> "tolerance"), or NULL. For
 * "did you mean" in messages about pass names, parameter names and spec fields. */
const char *kr_pass_suggest(const char *s, const char *const *known);

/* ---- The driver (passes/driver.c) ------------------------------------------------------------- */
/* The text being rewritten, re-parsed after every pass. Owns its arena, source, tree and model. */
typedef struct KrDoc KrDoc;

KrDoc *kr_doc_new(const char *path, const char *text, size_t len, KrDiags *diags);
/* The same, every parse of the text with build's defines (preproc.h; build outlives the doc). */
KrDoc *kr_doc_new_built(const char *path, const char *text, size_t len, const KrBuildFlags *build, KrDiags *diags);
void kr_doc_free(KrDoc *self);
/* A document of the same text and state (its path, the passes applied so far, the schedules its
 * schedule passes keep, the kernels its text passes changed), sharing self's build; passes run on
 * the copy as they would on self. NULL when the text does not parse again (diags say why). */
KrDoc *kr_doc_copy(const KrDoc *self, KrDiags *diags);
const KrSource *kr_doc_source(const KrDoc *self);
const KrModel *kr_doc_model(const KrDoc *self);

/* What one applied pass did, for the audit log and replay. Strings are owned by the record's
 * arena (given to kr_doc_run_pass). */
typedef struct KrPassRecord {
  const char *pass;
  const char *kernel;
  const char *params_json;  /* the validated arguments, defaults included, as a JSON object */
  const char *given_json;   /* only the arguments the recipe gave (what replay passes back) */
  KrPrecision precision;
  const char *tolerance;
  KrVec(const char *) assumptions;
  KrVec(KrAligned) aligned; /* parameters accessed in wider units than their elements */
  KrVec(KrEdit) edits;      /* byte ranges in `before` */
  const char *before, *after;
  uint32_t before_len, after_len;
  KrLaunchChange launch;
  const char *schedule_json; /* a schedule pass: the kernel's schedule after it, else NULL */
} KrPassRecord;

/* Raw (unvalidated) arguments as the recipe layer hands them over: name -> value text lists.
 * Each entry is a key and either a scalar or a list of scalars, each scalar tagged. */
typedef enum { KR_RAW_INT, KR_RAW_NUMBER, KR_RAW_BOOL, KR_RAW_STRING } KrRawKind;
typedef struct KrRawScalar {
  KrRawKind kind;
  const char *text;     /* as written: "4", "true", "x" */
} KrRawScalar;
typedef struct KrRawArg {
  const char *key;
  bool is_list;
  KrVec(KrRawScalar) items;
} KrRawArg;
typedef KrVec(KrRawArg) KrRawArgs;

/* Validates raw arguments against the pass's parameters (unknown names, wrong types, values out
 * of range or not among the choices), filling in defaults. Errors list the valid names/values. */
KrStatus kr_pass_validate(const KrPass *p, const KrRawArgs *raw, KrArena *arena, KrValue **out,
                          KrDiags *diags);
/* Runs a pass on a kernel of the document. KR_OK: applied, the document now holds the new text
 * and *rec describes the change. KR_SKIP: not applicable (reason in diags). KR_ERR: bad
 * arguments, or the pass produced text that does not parse (a pass bug, reported as such).
 * A lowering pass runs only when allow_lowering is true. */
KrStatus kr_doc_run_pass(KrDoc *doc, const KrPass *p, const char *kernel, const KrRawArgs *raw,
                         bool allow_lowering, KrArena *rec_arena, KrPassRecord *rec,
                         KrDiags *diags);

#endif
