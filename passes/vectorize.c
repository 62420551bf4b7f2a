/* passes/vectorize.c: elementwise kernels load and store float4/float2/half2 vectors.
 *
 * Before (the two shapes handled; `i < n` may also be `if (i >= n) return;` followed by the
 * element's statements):
 *     int i = blockIdx.x * blockDim.x + threadIdx.x;
 *     if (i < n) y[i] = a * x[i] + y[i];
 *   or
 *     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
 *       y[i] = a * x[i] + y[i];
 * After (width 4; the loop shape gets a vector loop followed by the original loop, started
 * after the last whole vector):
 *     int i = blockIdx.x * blockDim.x + threadIdx.x;
 *     // vectorize: whole vectors only when x and y are 16-byte aligned (x + 1 is not)
 *     const bool kr_aligned = (reinterpret_cast<unsigned long long>(x) | …(y)) % 16 == 0;
 *     const int kr_nv = kr_aligned ? (n) / 4 : 0;
 *     if (i < kr_nv) {
 *       const int kr_v = i;
 *       const float4 kr_x = reinterpret_cast<const float4 *>(x)[kr_v];
 *       float4 kr_y = reinterpret_cast<const float4 *>(y)[kr_v];
 *       kr_y.x = a * kr_x.x + kr_y.x;
 *       kr_y.y = a * kr_x.y + kr_y.y;       ... .z, .w
 *       reinterpret_cast<float4 *>(y)[kr_v] = kr_y;
 *     }
 *     for (int kr_e = kr_nv * 4 + i; kr_e < (n); kr_e += gridDim.x * blockDim.x) {
 *       const int i = kr_e;
 *       y[i] = a * x[i] + y[i];
 *     }
 * Each thread handles `width` consecutive elements: the element's statements are repeated once
 * per vector component (each copy in its own block when it declares something), with `i`
 * redeclared as that component's element index where i is used otherwise (so such uses, and
 * arrays left scalar, stay correct), and each vectorised access x[i] replaced by the component.
 * A vector written only under a condition is loaded first, so skipped components keep their
 * values. The scalar tail handles the last n % width elements, or every element when a vectorised
 * pointer is not aligned to its vector's size (a program may pass x + 1): the vector path is
 * taken only when the check at run time finds them all aligned, so the rewrite is correct for
 * any pointer, and the verifier runs each such pointer one element off an aligned address too
 * (runtime/verify.c, "Offset cases") to see that the fallback holds.
 *
 * Requires:
 *   - the element variable is exactly blockIdx.x * blockDim.x + threadIdx.x (affine.h: unit
 *     stride in threadIdx.x), declared once and never changed; the bound n is uniform (affine,
 *     no thread or loop variable); a loop steps by exactly blockDim.x * gridDim.x;
 *   - every access of a vectorised pointer is a plain x[i] inside the element's statements, with
 *     i itself as the index (not x[i + 1], x[2 * i], x[idx[i]]: those are refused, naming the
 *     index, its stride or why it is not affine), the read/write sets are sure, and the pointer
 *     itself is not moved;
 *   - the element type has a vector type: float (float2/float4), int (int2/int4), unsigned
 *     (uint2/uint4); double (double2), __half/half (__half2/half2), __nv_bfloat16 (…162) for
 *     width 2 only;
 *   - the element's statements do not use threadIdx/blockIdx, __shared__ arrays, warp or block
 *     operations (__syncthreads, __shfl_*, __ballot_sync, …), inline asm, return, goto, or
 *     break/continue that leave them, and contain no preprocessor lines; the functions they call
 *     are CUDA math functions/intrinsics or defined in this file and independent of the calling
 *     thread (no threadIdx/blockIdx, asm, warp operations or clock, transitively);
 *   - variables declared outside the element's statements are not changed inside them (a
 *     reduction `acc += x[i]` would combine different elements per thread), and those they read
 *     hold the same value in every thread (built from parameters, constants, blockDim/gridDim
 *     and loads at such addresses), since a thread now runs other threads' elements.
 * Pointers with other accesses stay scalar when `params` is left to its default; naming them
 * makes the pass refuse with the reason.
 *
 * Launch: the `if` shape needs width times fewer threads: grid becomes
 * "dim3((grid.x + W - 1) / W, grid.y, grid.z)" (C integer arithmetic over the old launch's
 * grid.x/y/z, block.x/y/z, shmem and the problem's symbols). The loop shape is correct with any
 * grid and leaves the launch alone.
 * Assumptions (recorded): the vectorised pointers do not alias one another or the pointers left
 * scalar; for the `if` shape, the original launch covered every element (grid.x * block.x >= n),
 * as the tail is handled by a grid-stride loop. The record also names each vectorised pointer
 * with its vector's size (kr_pass_assume_aligned), whose alignment the kernel checks at run time.
 * Params: width (2 or 4, default 4), params (names; default: every pointer that qualifies).
 * Precision: exact: the same operations on the same elements, in the same order per element.
 * (nvcc may contract a * b + c into an FMA differently in the repeated statements than in the
 * original, which can move a result by one ulp; with --fmad=false the results are bit-identical,
 * as checked on an H200 for the golden outputs and several corpus kernels.) */
#include <string.h>

#include "frontend/access.h"
#include "frontend/affine.h"
#include "frontend/uniform.h"
#include "passes/build.h"
#include "passes/pass.h"

static const KrParamSpec params[] = {
  {.name = "width", .type = KR_PARAM_INT, .def = "4", .choices = "2|4",
   .doc = "elements per vector: 2 or 4"},
  {.name = "params", .type = KR_PARAM_NAMES, .def = "all",
   .doc = "pointers to load and store as vectors (default: every one that qualifies)"},
};

static const char *const components = "xyzw";

/* ---- The element region ---------------------------------------------------------------------- */

typedef enum { FORM_LOOP, FORM_IF, FORM_RETURN } Form;

typedef struct Region {
  Form form;
  TSNode stmt;               /* the for loop, or the guarding if */
  KrBinding var;             /* the element variable */
  const char *vname, *vtype; /* "i", "int" (without const) */
  TSNode bound;              /* n in i < n */
  TSNode init, step;         /* loop: the initial value and the S of `i += S` */
  KrVec(TSNode) stmts;       /* the element's statements, in order */
  uint32_t repl_start, repl_end; /* FORM_IF, FORM_RETURN: the text replaced */
} Region;

typedef KrVec(Region) Regions;

typedef struct Vec {
  const KrPtrAccess *pa;
  const char *vtype;         /* "float4" */
  const char *local;         /* "kr_x" */
  bool read, written, load;  /* load: read, or written only under a condition */
} Vec;

typedef struct Plan {
  Region r;
  int width;
  KrVec(Vec) vecs;
  const char *lane, *tail;   /* fresh names: kr_v, kr_e */
  const char *aligned, *nv;  /* and kr_aligned (the run-time check), kr_nv (whole vectors to run) */
  KrNameSet taken;           /* the names made so far (passes/build.h, kr_code_fresh) */
} Plan;

/* What the checks of the element's statements need to know about the kernel. */
typedef struct Scope {
  const Region *r;
  KrUniform *uni;            /* which values every thread shares (frontend/uniform.h) */
} Scope;

/* Why a region or pointer was turned down, kept for the message when nothing qualifies. */
typedef struct Why {
  const char *msg;
  uint32_t at;
} Why;

static void why(KrPassCtx *cx, Why *w, TSNode at, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
static void why(KrPassCtx *cx, Why *w, TSNode at, const char *fmt, ...) {
  if (w->msg) return;
  va_list ap;
  va_start(ap, fmt);
  w->msg = kr_arena_vprintf(cx->arena, fmt, ap);
  va_end(ap);
  w->at = ts_node_start_byte(at);
}

static char *pos(KrPassCtx *cx, TSNode n) {
  TSPoint p = ts_node_start_point(n);
  return kr_arena_printf(cx->arena, "%u:%u", p.row + 1, p.column + 1);
}

/* The first preprocessor directive between the element's first and last statements (a byte offset),
 * or UINT32_MAX. A conditional whose branch is decided is blanked before parsing (frontend/preproc.h),
 * so the tree has no node for it, yet the copies per component carry its lines, and the branch not
 * taken was never checked: the text is read for them instead. */
static uint32_t directive_in(const KrPassCtx *cx, const Region *r) {
  if (r->stmts.len == 0) return UINT32_MAX;
  const char *t = cx->src->text;
  uint32_t end = ts_node_end_byte(r->stmts.data[r->stmts.len - 1]);
  bool line_start = false;
  for (uint32_t i = ts_node_start_byte(r->stmts.data[0]); i < end; i++) {
    if (t[i] == '\n') line_start = true;
    else if (t[i] == '#' && line_start) return i;
    else if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r') line_start = false;
  }
  return UINT32_MAX;
}

static TSNode strip(KrPassCtx *cx, TSNode n) { return kr_node_strip_parens(cx->tree, n); }

static TSNode field(TSNode n, const char *f) { return kr_node_field(n, f); }

static bool op_is(KrPassCtx *cx, TSNode n, const char *op) {
  return kr_node_operator_is(cx->tree, n, op);
}

/* The affine form blockIdx.x * blockDim.x + threadIdx.x, which the element variable must have. */
static bool is_global_index(const KrAffine *a) {
  if (!a->ok || a->terms.len != 2) return false;
  const KrAffTerm *b = &a->terms.data[0], *t = &a->terms.data[1];
  return b->var && strcmp(b->var, "blockIdx.x") == 0 && b->coef == 1 && b->nsyms == 1 &&
         strcmp(b->syms[0], "blockDim.x") == 0 && t->var && strcmp(t->var, "threadIdx.x") == 0 &&
         t->coef == 1 && t->nsyms == 0;
}

static bool is_grid_stride(const KrAffine *a) {
  return a->ok && a->terms.len == 1 && !a->terms.data[0].var && a->terms.data[0].coef == 1 &&
         a->terms.data[0].nsyms == 2 && strcmp(a->terms.data[0].syms[0], "blockDim.x") == 0 &&
         strcmp(a->terms.data[0].syms[1], "gridDim.x") == 0;
}

/* `v < n` or `n > v` with v the element variable: returns n, or a null node. */
static TSNode bound_of(KrPassCtx *cx, TSNode cond, KrBinding v, bool less) {
  TSNode none = {0};
  cond = strip(cx, cond);
  if (ts_node_is_null(cond) || ts_node_symbol(cond) != cx->tree->sym.binary_expression) return none;
  TSNode l = strip(cx, field(cond, "left")), r = strip(cx, field(cond, "right"));
  TSNode var = op_is(cx, cond, less ? "<" : ">=")   ? l
               : op_is(cx, cond, less ? ">" : "<=") ? r
                                                    : none;
  TSNode other = ts_node_eq(var, l) ? r : l;
  if (ts_node_is_null(var) || ts_node_symbol(var) != cx->tree->sym.identifier ||
      !kr_binding_same(kr_resolve(cx->tree, cx->kernel, var), v))
    return none;
  return other;
}

/* The side of comparison `cond` that is not the bound n: the element variable. */
static TSNode var_side(KrPassCtx *cx, TSNode cond, TSNode n) {
  TSNode l = strip(cx, field(cond, "left"));
  return ts_node_eq(l, n) ? strip(cx, field(cond, "right")) : l;
}

/* The declared type of the element variable without const ("int"), or NULL for volatile. */
static const char *type_text(KrPassCtx *cx, TSNode decl) {
  const char *t = kr_pass_text(cx, field(decl, "type"));
  for (uint32_t i = 0; i < ts_node_named_child_count(decl); i++) {
    TSNode q = ts_node_named_child(decl, i);
    if (ts_node_symbol(q) == cx->tree->sym.type_qualifier && !kr_node_text_is(cx->tree, q, "const"))
      return NULL; /* volatile and the like: not a plain index */
  }
  return t;
}

/* The single `T v = value` of a declaration, or false. */
static bool single_decl(KrPassCtx *cx, TSNode decl, KrBinding *b) {
  if (ts_node_is_null(decl) || ts_node_symbol(decl) != cx->tree->sym.declaration) return false;
  TSNode d = field(decl, "declarator");
  if (ts_node_is_null(d) || ts_node_symbol(d) != cx->tree->sym.init_declarator) return false;
  uint32_t ndecl = 0;
  for (uint32_t i = 0; i < ts_node_child_count(decl); i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (f && strcmp(f, "declarator") == 0) ndecl++;
  }
  TSNode id = field(d, "declarator");
  if (ndecl != 1 || ts_node_is_null(id) || ts_node_symbol(id) != cx->tree->sym.identifier)
    return false;
  *b = (KrBinding){.kind = KR_BIND_LOCAL, .decl = decl, .name = id, .value = field(d, "value"),
                   .param = -1};
  return !ts_node_is_null(b->value);
}

static bool uniform_bound(KrPassCtx *cx, KrAffineCtx *ac, TSNode n, Why *w) {
  const KrAffine *a = kr_affine_of(ac, n);
  if (!a->ok) {
    why(cx, w, n, "the bound '%s' is not affine: %s", kr_pass_text(cx, n), a->why);
    return false;
  }
  if (!kr_affine_is_uniform(a)) {
    why(cx, w, n, "the bound '%s' differs between threads", kr_pass_text(cx, n));
    return false;
  }
  return true;
}

/* The statements of a body: a compound statement's children, or the one statement. */
static void body_stmts(KrPassCtx *cx, TSNode body, Region *r) {
  if (ts_node_symbol(body) == cx->tree->sym.compound_statement) {
    for (uint32_t i = 0; i < ts_node_named_child_count(body); i++)
      kr_vec_push(cx->arena, &r->stmts, ts_node_named_child(body, i));
  } else {
    kr_vec_push(cx->arena, &r->stmts, body);
  }
}

/* for (T i = <global index>; i < n; i += blockDim.x * gridDim.x) body */
static bool loop_region(KrPassCtx *cx, KrAffineCtx *ac, TSNode loop, Region *r, Why *w) {
  KrBinding v;
  TSNode cond = field(loop, "condition"), upd = strip(cx, field(loop, "update"));
  if (!single_decl(cx, field(loop, "initializer"), &v)) return false;
  const char *name = kr_pass_text(cx, v.name);
  const KrAffine *init = kr_affine_of(ac, v.value);
  if (!is_global_index(init)) {
    why(cx, w, v.value, "the loop at %s starts at '%s', not at blockIdx.x * blockDim.x + "
                        "threadIdx.x", pos(cx, loop), kr_pass_text(cx, v.value));
    return false;
  }
  TSNode n = ts_node_is_null(cond) ? cond : bound_of(cx, cond, v, true);
  if (ts_node_is_null(n)) {
    why(cx, w, ts_node_is_null(cond) ? loop : cond, "the loop at %s is not bounded by '%s < n'",
        pos(cx, loop), name);
    return false;
  }
  if (!uniform_bound(cx, ac, n, w)) return false;
  TSNode left = ts_node_is_null(upd) ? upd : strip(cx, field(upd, "left"));
  if (ts_node_is_null(upd) || ts_node_symbol(upd) != cx->tree->sym.assignment_expression ||
      !op_is(cx, upd, "+=") || ts_node_symbol(left) != cx->tree->sym.identifier ||
      !kr_node_text_is(cx->tree, left, name) ||
      !is_grid_stride(kr_affine_of(ac, field(upd, "right")))) {
    why(cx, w, ts_node_is_null(upd) ? loop : upd, "the loop at %s does not step by '%s += "
        "blockDim.x * gridDim.x'", pos(cx, loop), name);
    return false;
  }
  const KrAffine *use = kr_affine_of(ac, var_side(cx, cond, n));
  if (!use->ok) {
    why(cx, w, loop, "the loop variable '%s' at %s: %s", name, pos(cx, loop), use->why);
    return false;
  }
  *r = (Region){.form = FORM_LOOP, .stmt = loop, .var = v, .vname = name, .bound = n,
                .init = v.value, .step = field(upd, "right"), .vtype = type_text(cx, v.decl)};
  body_stmts(cx, field(loop, "body"), r);
  return r->vtype != NULL;
}

/* Is `s` a `return;` or `{ return; }`? */
static bool is_bare_return(KrPassCtx *cx, TSNode s) {
  if (ts_node_symbol(s) == cx->tree->sym.compound_statement && ts_node_named_child_count(s) == 1)
    s = ts_node_named_child(s, 0);
  return ts_node_symbol(s) == cx->tree->sym.return_statement && ts_node_named_child_count(s) == 0;
}

/* After `T i = <global index>;` (top-level statement d of the body): `if (i < n) S` or
 * `if (i >= n) return; S…`. */
static bool guard_region(KrPassCtx *cx, KrAffineCtx *ac, uint32_t d, Region *r, Why *w) {
  TSNode body = cx->kernel->body;
  KrBinding v;
  if (!single_decl(cx, ts_node_named_child(body, d), &v)) return false;
  if (!is_global_index(kr_affine_of(ac, v.value))) return false;
  const char *name = kr_pass_text(cx, v.name);
  uint32_t count = ts_node_named_child_count(body);
  for (uint32_t g = d + 1; g < count; g++) {
    TSNode s = ts_node_named_child(body, g);
    if (ts_node_symbol(s) != cx->tree->sym.if_statement) continue;
    TSNode cond = field(s, "condition");
    if (!ts_node_is_null(cond) && ts_node_symbol(cond) == cx->tree->sym.condition_clause)
      cond = field(cond, "value");
    TSNode n = bound_of(cx, cond, v, true);
    bool ret = false;
    if (ts_node_is_null(n)) {
      n = bound_of(cx, cond, v, false);
      ret = !ts_node_is_null(n) && is_bare_return(cx, field(s, "consequence"));
      if (!ret) continue;
    }
    if (!ts_node_is_null(field(s, "alternative"))) {
      why(cx, w, s, "the guard at %s has an else branch", pos(cx, s));
      return false;
    }
    const KrAffine *use = kr_affine_of(ac, var_side(cx, cond, n));
    if (!use->ok) {
      why(cx, w, s, "the element variable '%s': %s", name, use->why);
      return false;
    }
    if (!uniform_bound(cx, ac, n, w)) return false;
    *r = (Region){.form = ret ? FORM_RETURN : FORM_IF, .stmt = s, .var = v, .vname = name,
                  .bound = n, .vtype = type_text(cx, v.decl), .repl_start = ts_node_start_byte(s),
                  .repl_end = ts_node_end_byte(s)};
    if (!ret) body_stmts(cx, field(s, "consequence"), r);
    for (uint32_t k = g + 1; ret && k < count; k++) {
      kr_vec_push(cx->arena, &r->stmts, ts_node_named_child(body, k));
      r->repl_end = ts_node_end_byte(ts_node_named_child(body, k));
    }
    return r->vtype != NULL && r->stmts.len > 0;
  }
  return false;
}

static void find_regions(KrPassCtx *cx, KrAffineCtx *ac, Regions *out, Why *w) {
  TSNode body = cx->kernel->body;
  for (uint32_t i = 0; i < ts_node_named_child_count(body); i++) {
    TSNode s = ts_node_named_child(body, i);
    Region r = {0};
    if (ts_node_symbol(s) == cx->tree->sym.for_statement ? loop_region(cx, ac, s, &r, w)
                                                          : guard_region(cx, ac, i, &r, w))
      kr_vec_push(cx->arena, out, r);
  }
}

/* ---- What the element's statements may contain ----------------------------------------------- */

static bool inside(TSNode n, uint32_t s, uint32_t e) {
  return ts_node_start_byte(n) >= s && ts_node_end_byte(n) <= e;
}

static bool in_region(const Region *r, TSNode n) {
  for (size_t i = 0; i < r->stmts.len; i++)
    if (inside(n, ts_node_start_byte(r->stmts.data[i]), ts_node_end_byte(r->stmts.data[i])))
      return true;
  return false;
}

/* Does a break/continue at n leave the element's statements (or, for the loop shape, reach the
 * loop itself)? */
static bool jumps_out(KrPassCtx *cx, const Region *r, TSNode n, bool is_break) {
  const KrSyms *s = &cx->tree->sym;
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    if (!in_region(r, p)) return true;
    TSSymbol ps = ts_node_symbol(p);
    if (ps == s->for_statement || ps == s->while_statement || ps == s->do_statement ||
        ps == s->for_range_loop || (is_break && strcmp(ts_node_type(p), "switch_statement") == 0))
      return false;
  }
  return true;
}

/* Is `name` a function defined in this file whose parameters are all taken by value or by
 * const reference? 1 yes, 0 no (a non-const reference), -1 no such function here. */
static int device_fn_by_value(KrPassCtx *cx, const char *name) {
  const KrSyms *s = &cx->tree->sym;
  TSNode def = kr_tree_function(cx->tree, name);
  if (ts_node_is_null(def)) return -1;
  TSNode d = field(def, "declarator");
  while (!ts_node_is_null(d) && ts_node_symbol(d) != s->function_declarator)
    d = field(d, "declarator");
  TSNode list = field(d, "parameters");
  for (uint32_t i = 0; i < ts_node_named_child_count(list); i++) {
    TSNode p = ts_node_named_child(list, i);
    TSNode pd = field(p, "declarator");
    bool is_const = false;
    for (uint32_t j = 0; j < ts_node_named_child_count(p); j++)
      is_const |= kr_node_text_is(cx->tree, ts_node_named_child(p, j), "const");
    if (!ts_node_is_null(pd) && ts_node_symbol(pd) == s->reference_declarator && !is_const)
      return 0;
  }
  return 1;
}

/* Calls that take their arguments by value, so a variable passed to them cannot change: casts,
 * __device__ functions of this file none of whose parameters is a non-const reference, and CUDA
 * math functions and intrinsics (access.h) when no function of that name is defined here. */
static bool value_call(KrPassCtx *cx, TSNode call) {
  TSNode fn = field(call, "function");
  if (ts_node_is_null(fn)) return false;
  if (ts_node_symbol(fn) == cx->tree->sym.primitive_type) return true;
  if (ts_node_symbol(fn) == cx->tree->sym.template_function) fn = field(fn, "name");
  if (ts_node_symbol(fn) != cx->tree->sym.identifier) return false;
  const char *name = kr_pass_text(cx, fn);
  if (strcmp(name, "static_cast") == 0) return true;
  int by_value = device_fn_by_value(cx, name);
  return by_value >= 0 ? by_value == 1 : kr_access_value_function(name);
}

/* Is the variable of binding b a pointer (a pointer declarator between its declaration and its
 * name)? */
static bool pointer_binding(KrPassCtx *cx, KrBinding b) {
  for (TSNode n = ts_node_parent(b.name); !ts_node_is_null(n) && !ts_node_eq(n, b.decl);
       n = ts_node_parent(n))
    if (ts_node_symbol(n) == cx->tree->sym.pointer_declarator) return true;
  return false;
}

/* A variable declared outside the element's statements is changed inside them (`acc += x[i]`,
 * `last = x[i]`, `&v`, or passed to a function that may take a reference): with the statements
 * repeated per component, it would combine or keep different elements than before. */
static void outer_change(KrPassCtx *cx, const Region *r, TSNode at, TSNode target, bool by_call,
                         Why *w) {
  target = strip(cx, target);
  if (ts_node_is_null(target) || ts_node_symbol(target) != cx->tree->sym.identifier) return;
  KrBinding b = kr_resolve(cx->tree, cx->kernel, target);
  if (b.kind != KR_BIND_LOCAL && b.kind != KR_BIND_PARAM) return;
  if (b.kind == KR_BIND_LOCAL && in_region(r, b.decl)) return;
  /* Passed to a call, a pointer is a value (what it points to is the read/write sets' business),
   * and the element variable is const in every copy, so a reference to it would not compile. */
  if (by_call && (kr_binding_same(b, r->var) || pointer_binding(cx, b))) return;
  why(cx, w, at, "the element's statements change '%s' (declared at %s, outside them) at %s; "
      "each thread would now combine different elements", kr_pass_text(cx, target),
      pos(cx, b.name), pos(cx, at));
}

/* The element's statements read identifier n: a variable from outside them must hold the same
 * value in every thread, since a thread now runs the statements for other threads' elements. */
static void outer_read(KrPassCtx *cx, const Scope *sc, TSNode n, Why *w) {
  KrBinding b = kr_resolve(cx->tree, cx->kernel, n);
  if (b.kind == KR_BIND_NONE || b.kind == KR_BIND_LAMBDA || kr_binding_same(b, sc->r->var)) return;
  if (b.kind == KR_BIND_LOCAL && in_region(sc->r, b.decl)) return;
  if (kr_uniform_except(sc->uni, n, sc->r->var, NULL)) return;
  why(cx, w, n, "the element's statements read '%s' (declared at %s, outside them) at %s, which "
      "can differ between threads; a thread would now use its own value for other threads' "
      "elements", kr_pass_text(cx, n), pos(cx, b.name), pos(cx, n));
}

static bool shared_array(KrPassCtx *cx, TSNode id) {
  for (size_t i = 0; i < cx->kernel->shared.len; i++) {
    const KrShared *sh = &cx->kernel->shared.data[i];
    if (!kr_node_text_is(cx->tree, id, sh->name)) continue;
    KrBinding b = kr_resolve(cx->tree, cx->kernel, id);
    if (b.kind == KR_BIND_LOCAL && ts_node_start_byte(b.decl) == sh->span.start) return true;
  }
  return false;
}

/* Does the body of a function of this file depend on which thread runs it (threadIdx, blockIdx,
 * inline asm such as %laneid, warp or block operations, clock), directly or through the
 * functions it calls? Returns the construct, or NULL. Unknown callees count as dependent. */
static const char *thread_dependent(KrPassCtx *cx, TSNode n, int depth) {
  const KrSyms *s = &cx->tree->sym;
  TSSymbol sym = ts_node_symbol(n);
  if (depth > 8) return "deeply nested calls";
  if (sym == s->identifier &&
      (kr_node_text_is(cx->tree, n, "threadIdx") || kr_node_text_is(cx->tree, n, "blockIdx")))
    return kr_pass_text(cx, n);
  if (sym == s->gnu_asm_expression) return "inline asm";
  if (sym == s->call_expression) {
    TSNode fn = field(n, "function");
    const char *name = ts_node_is_null(fn) ? "" : kr_pass_text(cx, fn);
    TSNode def = kr_tree_function(cx->tree, name);
    if (kr_uniform_collective(name) || strncmp(name, "clock", 5) == 0 ||
        strncmp(name, "__lanemask", 10) == 0)
      return name;
    if (!ts_node_is_null(def)) {
      const char *d = thread_dependent(cx, field(def, "body"), depth + 1);
      if (d) return d;
    } else if (ts_node_symbol(fn) != s->primitive_type && !kr_access_value_function(name) &&
               strcmp(name, "static_cast") != 0) {
      return kr_arena_printf(cx->arena, "a call to '%s', which krewrite cannot see", name);
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    const char *d = thread_dependent(cx, ts_node_named_child(n, i), depth);
    if (d) return d;
  }
  return NULL;
}

/* A call in the element's statements: warp and block operations, and functions whose result
 * depends on the calling thread, would see each thread handle several elements. */
static void check_call(KrPassCtx *cx, TSNode n, Why *w) {
  TSNode fn = field(n, "function");
  const char *name = ts_node_is_null(fn) ? "" : kr_pass_text(cx, fn);
  const char *dot = strrchr(name, '.');
  if (kr_uniform_collective(name) || (dot && strcmp(dot, ".sync") == 0)) {
    why(cx, w, n, "the element's statements call '%s' at %s; a warp or block operation would "
        "see each thread handle several elements", name, pos(cx, n));
    return;
  }
  TSNode def = kr_tree_function(cx->tree, name);
  const char *d = ts_node_is_null(def) ? NULL : thread_dependent(cx, field(def, "body"), 0);
  if (d)
    why(cx, w, n, "the element's statements call '%s' at %s, which may depend on the calling "
        "thread (%s)", name, pos(cx, n), d);
  else if (ts_node_is_null(def) && ts_node_symbol(fn) != cx->tree->sym.primitive_type &&
           ts_node_symbol(fn) != cx->tree->sym.template_function && !kr_access_value_function(name))
    why(cx, w, n, "the element's statements call '%s' at %s, which krewrite cannot see", name,
        pos(cx, n));
}

static void check_node(KrPassCtx *cx, const Scope *sc, TSNode n, Why *w) {
  const KrSyms *s = &cx->tree->sym;
  const Region *r = sc->r;
  TSSymbol sym = ts_node_symbol(n);
  const char *type = ts_node_type(n);
  if (sym == s->identifier) {
    if (kr_node_text_is(cx->tree, n, "threadIdx") || kr_node_text_is(cx->tree, n, "blockIdx"))
      why(cx, w, n, "the element's statements use '%s' at %s; with several elements per thread "
          "it would change meaning", kr_pass_text(cx, n), pos(cx, n));
    else if (shared_array(cx, n))
      why(cx, w, n, "the element's statements use the __shared__ array '%s' at %s",
          kr_pass_text(cx, n), pos(cx, n));
    else
      outer_read(cx, sc, n, w);
  } else if (sym == s->assignment_expression || sym == s->update_expression ||
             (sym == s->pointer_expression && op_is(cx, n, "&"))) {
    outer_change(cx, r, n, field(n, sym == s->assignment_expression ? "left" : "argument"), false,
                 w);
  } else if (sym == s->call_expression) {
    TSNode args = field(n, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++)
      if (!value_call(cx, n)) outer_change(cx, r, n, ts_node_named_child(args, i), true, w);
    check_call(cx, n, w);
  } else if (sym == s->gnu_asm_expression) {
    why(cx, w, n, "the element's statements contain inline asm at %s", pos(cx, n));
  } else if (sym == s->return_statement || strcmp(type, "goto_statement") == 0) {
    why(cx, w, n, "the element's statements leave early ('%s' at %s)", kr_pass_text(cx, n),
        pos(cx, n));
  } else if ((strcmp(type, "break_statement") == 0 || strcmp(type, "continue_statement") == 0) &&
             jumps_out(cx, r, n, type[0] == 'b')) {
    why(cx, w, n, "the element's statements leave early ('%s' at %s)", kr_pass_text(cx, n),
        pos(cx, n));
  } else if (strncmp(type, "preproc_", 8) == 0) {
    why(cx, w, n, "the element's statements contain a preprocessor line at %s", pos(cx, n));
  } else if (sym == s->declaration) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode q = ts_node_named_child(n, i);
      if (ts_node_symbol(q) == s->storage_class_specifier ||
          kr_node_text_is(cx->tree, q, "__shared__"))
        why(cx, w, n, "the element's statements declare '%s' at %s", kr_pass_text(cx, q),
            pos(cx, n));
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    check_node(cx, sc, ts_node_named_child(n, i), w);
}

/* ---- Which pointers qualify ------------------------------------------------------------------ */

static const char *vector_type(const char *base, int width) {
  static const struct { const char *base, *v2, *v4; } map[] = {
    {"float", "float2", "float4"},        {"int", "int2", "int4"},
    {"unsigned", "uint2", "uint4"},       {"unsigned int", "uint2", "uint4"},
    {"double", "double2", NULL},          {"__half", "__half2", NULL},
    {"half", "half2", NULL},              {"__nv_bfloat16", "__nv_bfloat162", NULL},
    {"nv_bfloat16", "nv_bfloat162", NULL},
  };
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strcmp(base, map[i].base) == 0) return width == 2 ? map[i].v2 : map[i].v4;
  return NULL;
}

static int elem_bytes(const char *base) {
  if (strcmp(base, "double") == 0) return 8;
  if (strstr(base, "half") || strstr(base, "bfloat16")) return 2;
  return 4;
}

/* Why index `idx` of a vectorised pointer is not the element variable. */
static void index_reason(KrPassCtx *cx, KrAffineCtx *ac, const Region *r, const KrAccessSite *s,
                         TSNode idx, Why *w) {
  const char *p = kr_pass_text(cx, field(s->elem, "argument"));
  const KrAffine *a = kr_affine_of(ac, idx);
  long long st, d;
  if (!a->ok) {
    why(cx, w, idx, "index '%s' of '%s' at %u:%u is not affine: %s", kr_pass_text(cx, idx), p,
        s->line, s->col, a->why);
  } else if (!kr_affine_stride(ac, a, "threadIdx.x", &st)) {
    why(cx, w, idx, "index '%s' of '%s' at %u:%u has no constant stride in threadIdx.x",
        kr_pass_text(cx, idx), p, s->line, s->col);
  } else if (st != 1) {
    why(cx, w, idx, "index '%s' of '%s' at %u:%u has stride %lld in threadIdx.x, not 1",
        kr_pass_text(cx, idx), p, s->line, s->col, st);
  } else if (kr_affine_const_diff(a, kr_affine_of(ac, r->var.value), &d) && d != 0) {
    why(cx, w, idx, "index '%s' of '%s' at %u:%u is offset by %lld from the element index '%s'; "
        "only x[%s] is vectorised", kr_pass_text(cx, idx), p, s->line, s->col, d, r->vname,
        r->vname);
  } else {
    why(cx, w, idx, "index '%s' of '%s' at %u:%u is not the element variable '%s'",
        kr_pass_text(cx, idx), p, s->line, s->col, r->vname);
  }
}

/* Can pointer pa be loaded/stored as vectors in region r? Fills w with the reason if not. */
static bool eligible(KrPassCtx *cx, KrAffineCtx *ac, const Region *r, const KrPtrAccess *pa,
                     int width, Why *w) {
  const char *n = pa->param->name;
  TSNode at = pa->param->node;
  if (!pa->sure) {
    w->at = pa->unsure_at;
    w->msg = kr_arena_printf(cx->arena, "pointer '%s' cannot be analysed (%s)", n, pa->unsure_why);
    return false;
  }
  if (pa->moved) {
    w->at = pa->moved_at;
    w->msg = kr_arena_printf(cx->arena, "pointer '%s' itself is changed in the kernel, so its "
                                        "alignment is unknown", n);
    return false;
  }
  if (pa->sites.len == 0) {
    why(cx, w, at, "pointer '%s' is not accessed in kernel '%s'", n, cx->kernel->name);
    return false;
  }
  if (pa->is_volatile) {
    why(cx, w, at, "pointer '%s' points to volatile memory; vector accesses would merge its loads "
        "and stores", n);
    return false;
  }
  if (pa->param->pointer_depth != 1 || !vector_type(pa->param->base, width)) {
    why(cx, w, at, "pointer '%s' has element type '%s', which has no %d-wide vector type "
        "vectorize uses%s", n, pa->param->base, width,
        vector_type(pa->param->base, 2) && width == 4 ? " (try width = 2)" : "");
    return false;
  }
  for (size_t i = 0; i < pa->sites.len; i++) {
    const KrAccessSite *s = &pa->sites.data[i];
    if (!s->direct || ts_node_is_null(s->elem) ||
        ts_node_symbol(s->elem) != cx->tree->sym.subscript_expression ||
        !ts_node_eq(s->node, s->elem)) {
      why(cx, w, s->node, "pointer '%s' is accessed as '%s' at %u:%u; vectorize handles plain "
          "'%s[%s]' only", n, kr_pass_text(cx, s->node), s->line, s->col, n, r->vname);
      return false;
    }
    if (!in_region(r, s->node)) {
      why(cx, w, s->node, "pointer '%s' is accessed at %u:%u, outside the elementwise statements "
          "at %s", n, s->line, s->col, pos(cx, r->stmt));
      return false;
    }
    TSNode idx = strip(cx, ts_node_named_child(field(s->elem, "indices"), 0));
    if (ts_node_symbol(idx) != cx->tree->sym.identifier ||
        !kr_binding_same(kr_resolve(cx->tree, cx->kernel, idx), r->var)) {
      index_reason(cx, ac, r, s, idx, w);
      return false;
    }
  }
  return true;
}

/* Is write site s a plain `x[i] = …;` statement of the element, run for every element? */
static bool unconditional_store(KrPassCtx *cx, const Region *r, const KrAccessSite *s) {
  TSNode asg = ts_node_parent(s->elem);
  if (ts_node_symbol(asg) != cx->tree->sym.assignment_expression || !op_is(cx, asg, "="))
    return false;
  TSNode st = ts_node_parent(asg);
  if (ts_node_symbol(st) != cx->tree->sym.expression_statement) return false;
  for (size_t i = 0; i < r->stmts.len; i++)
    if (ts_node_eq(r->stmts.data[i], st)) return true;
  return false;
}

/* An identifier not used anywhere in the kernel: base, base_1, base_2, … */
static const char *fresh(KrPassCtx *cx, Plan *pl, const char *base) {
  return kr_code_fresh(cx, &pl->taken, base);
}

/* The vectorised pointers' names: "x", "x and y", "x, y and out". */
static const char *names_text(KrPassCtx *cx, const Plan *pl) {
  KrBuf b = {0};
  for (size_t v = 0; v < pl->vecs.len; v++)
    kr_buf_printf(&b, "%s%s", v == 0 ? "" : v + 1 == pl->vecs.len ? " and " : ", ", pl->vecs.data[v].pa->param->name);
  const char *r = kr_arena_strdup(cx->arena, b.data);
  kr_buf_free(&b);
  return r;
}

static void add_vec(KrPassCtx *cx, Plan *pl, const KrPtrAccess *pa) {
  Vec v = {.pa = pa, .vtype = vector_type(pa->param->base, pl->width)};
  v.local = fresh(cx, pl, kr_arena_printf(cx->arena, "kr_%s", pa->param->name));
  for (size_t i = 0; i < pa->sites.len; i++) {
    const KrAccessSite *s = &pa->sites.data[i];
    if (s->kind & KR_ACCESS_READ) v.read = true;
    if (s->kind & KR_ACCESS_WRITE) {
      v.written = true;
      if (!unconditional_store(cx, &pl->r, s)) v.load = true;
    }
  }
  if (v.read) v.load = true;
  kr_vec_push(cx->arena, &pl->vecs, v);
}

/* Picks the region and the pointers. KR_OK with the plan, or KR_SKIP with the reason. */
static KrStatus make_plan(KrPassCtx *cx, Plan *pl) {
  const KrKernel *k = cx->kernel;
  const KrValue *names = kr_pass_arg(cx, "params");
  pl->width = (int)kr_pass_arg(cx, "width")->i; /* 2 or 4: the driver checked the choices */
  KrAccess *acc = kr_pass_access(cx);
  KrAffineCtx *ac = kr_pass_affine(cx);
  KrUniform *uni = kr_pass_uniform(cx);
  for (size_t i = 0; i < names->names.len; i++)
    if (!kr_access_find(acc, names->names.data[i]))
      return kr_pass_skip(cx, k->span.start, "kernel '%s' has no pointer parameter '%s' (its "
                          "pointer parameters: %s)", k->name, names->names.data[i],
                          acc->ptrs.len ? kr_access_names(acc, cx->arena) : "none");
  Regions regions = {0};
  Why rw = {0}, pw = {0};
  find_regions(cx, ac, &regions, &rw);
  if (regions.len == 0)
    return kr_pass_skip(cx, rw.msg ? rw.at : k->span.start, "%s",
                        rw.msg ? kr_arena_printf(cx->arena, "no elementwise loop vectorize "
                                                 "understands in kernel '%s': %s", k->name, rw.msg)
                               : kr_arena_printf(cx->arena, "no elementwise loop vectorize "
                                                 "understands in kernel '%s' (expected 'int i = "
                                                 "blockIdx.x * blockDim.x + threadIdx.x; if (i < "
                                                 "n) …' or a grid-stride loop over i)", k->name));
  for (size_t ri = 0; ri < regions.len; ri++) {
    memset(&pl->vecs, 0, sizeof pl->vecs);
    memset(&pl->taken, 0, sizeof pl->taken);
    pl->r = regions.data[ri];
    pl->lane = fresh(cx, pl, "kr_v");
    pl->tail = fresh(cx, pl, "kr_e");
    pl->aligned = fresh(cx, pl, "kr_aligned");
    pl->nv = fresh(cx, pl, "kr_nv");
    Why bw = {0}, nw = {0};
    Scope sc = {.r = &pl->r, .uni = uni};
    for (size_t i = 0; i < pl->r.stmts.len; i++) check_node(cx, &sc, pl->r.stmts.data[i], &bw);
    uint32_t d = bw.msg ? UINT32_MAX : directive_in(cx, &pl->r);
    if (d != UINT32_MAX) {
      uint32_t line = kr_source_line_of(cx->src, d);
      bw.at = d;
      bw.msg = kr_arena_printf(cx->arena, "the element's statements contain a preprocessor line at "
                               "%u:%u", line + 1, d - cx->src->line_starts[line] + 1);
    }
    for (size_t i = 0; i < acc->ptrs.len && !nw.msg; i++) {
      const KrPtrAccess *pa = &acc->ptrs.data[i];
      bool named = names->names.len && kr_pass_names_has(names, pa->param->name);
      Why w = {0};
      if ((names->names.len && !named) || (!named && pa->sites.len == 0)) continue;
      if (eligible(cx, ac, &pl->r, pa, pl->width, &w)) add_vec(cx, pl, pa);
      else if (named) nw = w; /* every named pointer must qualify in the same region */
      else if (!pw.msg) pw = w;
    }
    if (nw.msg && !pw.msg) pw = nw;
    if (nw.msg || pl->vecs.len == 0) continue;
    if (bw.msg) return kr_pass_skip(cx, bw.at, "%s", bw.msg);
    return KR_OK;
  }
  return kr_pass_skip(cx, pw.msg ? pw.at : k->span.start, "%s",
                      pw.msg ? pw.msg : "no pointer qualifies for vectorize");
}

/* ---- Emitting -------------------------------------------------------------------------------- */

/* The element's statements spliced in at the current depth, with each vectorised access
 * replaced by component c of its local (c < 0: unchanged). */
static void body_text(KrCode *o, const Plan *pl, int c) {
  const Region *r = &pl->r;
  KrVec(KrSubst) subst = {0};
  KrArena *a = o->cx->arena;
  for (size_t v = 0; c >= 0 && v < pl->vecs.len; v++) {
    const Vec *x = &pl->vecs.data[v];
    for (size_t j = 0; j < x->pa->sites.len; j++) {
      TSNode e = x->pa->sites.data[j].elem;
      KrSubst sb = {ts_node_start_byte(e), ts_node_end_byte(e),
                    kr_arena_printf(a, "%s.%c", x->local, components[c])};
      kr_vec_push(a, &subst, sb);
    }
  }
  /* Sites come pointer by pointer; the splice wants them in source order. */
  for (size_t i = 1; i < subst.len; i++)
    for (size_t j = i; j > 0 && subst.data[j - 1].start > subst.data[j].start; j--) {
      KrSubst t = subst.data[j];
      subst.data[j] = subst.data[j - 1];
      subst.data[j - 1] = t;
    }
  kr_code_splice_range(o, ts_node_start_byte(r->stmts.data[0]),
                       ts_node_end_byte(r->stmts.data[r->stmts.len - 1]), subst.data, subst.len);
}

/* Does the element variable appear in the element's statements other than as a vectorised
 * index? Then each copy redeclares it. */
static bool var_used(KrPassCtx *cx, const Plan *pl, TSNode n) {
  if (ts_node_symbol(n) == cx->tree->sym.subscript_expression) {
    for (size_t v = 0; v < pl->vecs.len; v++)
      for (size_t j = 0; j < pl->vecs.data[v].pa->sites.len; j++)
        if (ts_node_eq(pl->vecs.data[v].pa->sites.data[j].elem, n)) return false;
  }
  if (ts_node_symbol(n) == cx->tree->sym.identifier && kr_node_text_is(cx->tree, n, pl->r.vname))
    return true;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (var_used(cx, pl, ts_node_named_child(n, i))) return true;
  return false;
}

/* The vector body at the current depth: loads, one block per component, stores. */
static void vector_body(KrCode *o, const Plan *pl) {
  KrPassCtx *cx = o->cx;
  bool redeclare = false;
  for (size_t i = 0; i < pl->r.stmts.len; i++) redeclare |= var_used(cx, pl, pl->r.stmts.data[i]);
  for (size_t v = 0; v < pl->vecs.len; v++) {
    const Vec *x = &pl->vecs.data[v];
    if (x->load)
      kr_code_line(o, "%s%s %s = reinterpret_cast<const %s *>(%s)[%s];",
                   x->written ? "" : "const ", x->vtype, x->local, x->vtype, x->pa->param->name,
                   pl->lane);
    else
      kr_code_line(o, "%s %s;", x->vtype, x->local);
  }
  /* Each copy gets its own block when it declares something (the element variable, or a
   * local of the element's statements), so the copies' names do not clash. */
  bool block = redeclare;
  for (size_t i = 0; i < pl->r.stmts.len; i++)
    block |= ts_node_symbol(pl->r.stmts.data[i]) == cx->tree->sym.declaration;
  for (int c = 0; c < pl->width; c++) {
    if (block) kr_code_block(o);
    if (redeclare && c == 0)
      kr_code_line(o, "const %s %s = %d * %s;", pl->r.vtype, pl->r.vname, pl->width, pl->lane);
    else if (redeclare)
      kr_code_line(o, "const %s %s = %d * %s + %d;", pl->r.vtype, pl->r.vname, pl->width,
                   pl->lane, c);
    body_text(o, pl, c);
    if (block) kr_code_close(o);
  }
  for (size_t v = 0; v < pl->vecs.len; v++) {
    const Vec *x = &pl->vecs.data[v];
    if (x->written)
      kr_code_line(o, "reinterpret_cast<%s *>(%s)[%s] = %s;", x->vtype, x->pa->param->name,
                   pl->lane, x->local);
  }
}

/* The bytes of vectorised pointer v's vector. */
static int vec_bytes(const Plan *pl, size_t v) {
  return elem_bytes(pl->vecs.data[v].pa->param->base) * pl->width;
}

/* The run-time alignment check and the number of whole vectors: none when a vectorised pointer
 * is not aligned to its vector's size (a program passed x + 1), so that the scalar loop after
 * the vectors takes every element. Pointers of one vector size share one test. */
static void emit_alignment(KrCode *o, const Plan *pl, const char *n) {
  KrBuf test = {0};
  bool one_size = true;
  for (size_t v = 0; v < pl->vecs.len; v++) {
    int b = vec_bytes(pl, v);
    bool seen = false;
    for (size_t u = 0; u < v && !seen; u++) seen = vec_bytes(pl, u) == b;
    if (seen) continue;
    KrBuf group = {0};
    size_t count = 0;
    for (size_t u = v; u < pl->vecs.len; u++)
      if (vec_bytes(pl, u) == b)
        kr_buf_printf(&group, "%sreinterpret_cast<unsigned long long>(%s)", count++ ? " | " : "",
                      pl->vecs.data[u].pa->param->name);
    one_size = one_size && count == pl->vecs.len;
    kr_buf_printf(&test, "%s%s%s%s %% %d == 0", test.len ? " && " : "", count > 1 ? "(" : "", group.data,
                  count > 1 ? ")" : "", b);
    kr_buf_free(&group);
  }
  const char *first = pl->vecs.data[0].pa->param->name;
  if (one_size)
    kr_code_line(o, "// vectorize: whole vectors only when %s %d-byte aligned (%s + 1 is not)",
                 kr_arena_printf(o->cx->arena, "%s %s", names_text(o->cx, pl), pl->vecs.len > 1 ? "are" : "is"),
                 vec_bytes(pl, 0), first);
  else
    kr_code_line(o, "// vectorize: whole vectors only when each pointer is aligned to its vector (%s + 1 is not)",
                 first);
  kr_code_line(o, "const bool %s = %s;", pl->aligned, test.data);
  kr_code_line(o, "const %s %s = %s ? (%s) / %d : 0;", pl->r.vtype, pl->nv, pl->aligned, n, pl->width);
  kr_buf_free(&test);
}

/* The vector loop goes before the original loop, which then starts after the last whole
 * vector (at its first element when the pointers are not aligned). */
static void emit_loop(KrPassCtx *cx, const Plan *pl) {
  const Region *r = &pl->r;
  uint32_t at = ts_node_start_byte(r->stmt);
  const char *n = kr_pass_text(cx, r->bound);
  KrCode o;
  kr_code_at(&o, cx, at);
  emit_alignment(&o, pl, n);
  kr_code_open(&o, "for (%s %s = %s; %s < %s; %s += %s)", r->vtype, pl->lane,
               kr_pass_text(cx, r->init), pl->lane, pl->nv, pl->lane, kr_pass_text(cx, r->step));
  vector_body(&o, pl);
  kr_code_close(&o);
  kr_code_indent(&o);
  kr_code_replace(&o, at, at);
  const char *start = kr_arena_printf(cx->arena, "%s * %d + (%s)", pl->nv, pl->width,
                                      kr_pass_text(cx, r->init));
  kr_pass_replace_node(cx, r->init, start);
}

/* The guard becomes the vector guard and a grid-stride loop over the scalar tail (every element
 * when the pointers are not aligned: the launch then has a width-th of the threads, which the
 * loop's stride covers). */
static void emit_guard(KrPassCtx *cx, const Plan *pl) {
  const Region *r = &pl->r;
  const char *n = kr_pass_text(cx, r->bound);
  const char *vt = r->vtype;
  KrCode o;
  kr_code_at(&o, cx, r->repl_start);
  emit_alignment(&o, pl, n);
  kr_code_open(&o, "if (%s < %s)", r->vname, pl->nv);
  kr_code_line(&o, "const %s %s = %s;", vt, pl->lane, r->vname);
  vector_body(&o, pl);
  kr_code_close(&o);
  kr_code_open(&o, "for (%s %s = %s * %d + %s; %s < (%s); %s += gridDim.x * blockDim.x)",
               vt, pl->tail, pl->nv, pl->width, r->vname, pl->tail, n, pl->tail);
  kr_code_line(&o, "const %s %s = %s;", vt, r->vname, pl->tail);
  body_text(&o, pl, -1);
  kr_code_close(&o);
  kr_code_trim(&o);
  kr_code_replace(&o, r->repl_start, r->repl_end);
  cx->launch.grid = kr_arena_printf(cx->arena, "dim3((grid.x + %d) / %d, grid.y, grid.z)",
                                    pl->width - 1, pl->width);
}

/* ---- Check and apply ------------------------------------------------------------------------- */

static KrStatus check(KrPassCtx *cx) {
  Plan pl = {0};
  return make_plan(cx, &pl);
}

static KrStatus apply(KrPassCtx *cx) {
  Plan pl = {0};
  KrStatus st = make_plan(cx, &pl);
  if (st != KR_OK) return st;
  if (pl.r.form == FORM_LOOP) emit_loop(cx, &pl);
  else emit_guard(cx, &pl);
  const char *names = names_text(cx, &pl);
  bool one_size = true;
  for (size_t v = 0; v < pl.vecs.len; v++) {
    kr_pass_assume_aligned(cx, pl.vecs.data[v].pa->param->name, vec_bytes(&pl, v));
    one_size = one_size && vec_bytes(&pl, v) == vec_bytes(&pl, 0);
  }
  kr_pass_assume(cx, "the vector path needs %s aligned to %s (checked at run time: an offset pointer such as "
                     "%s + 1 takes the element-by-element loop)", names,
                 one_size ? kr_arena_printf(cx->arena, "%d bytes", vec_bytes(&pl, 0)) : "their vectors' sizes",
                 pl.vecs.data[0].pa->param->name);
  kr_pass_assume(cx, "%s %s not alias one another or any pointer left scalar", names,
                 pl.vecs.len > 1 ? "do" : "does");
  if (pl.r.form != FORM_LOOP)
    kr_pass_assume(cx, "the original launch covers every element (grid.x * block.x >= %s)",
                   kr_pass_text(cx, pl.r.bound));
  return KR_OK;
}

const KrPass kr_pass_vectorize = {
  .name = "vectorize",
  .summary = "elementwise loads and stores as float4/float2/half2 vectors",
  .doc = "For `int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) …` and grid-stride loops "
         "over i, each thread handles `width` consecutive elements: x[i] accesses become one "
         "vector load/store per pointer, the element's statements are repeated per component, "
         "and a scalar tail handles n % width (every element when a pointer is not aligned to its "
         "vector, which the kernel checks at run time). The `if` shape shrinks the grid by width.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .search = {
    .reason = "load and store the arrays of %s as vectors, fewer and wider memory transactions",
    .points = {{"width=4", "{ width = 4 }"}, {"width=2", "{ width = 2 }"}},
    .rank = {[KR_SEARCH_MEMORY] = 150, [KR_SEARCH_COMPUTE] = 170, [KR_SEARCH_LATENCY] = 140},
  },
  .check = check,
  .apply = apply,
};
