/* passes/fast_math.c: single-precision math through the fast hardware intrinsics.
 *
 * Before:  y[i] = expf(x[i] - m) / s;        r = 1.0f / sqrtf(v + eps);
 * After:   y[i] = __fdividef(__expf(x[i] - m), s);   r = rsqrtf(v + eps);
 *
 * Rewrites, each named by its `ops` entry:
 *   exp    expf(x) -> __expf(x)      (and exp(x) when every argument is float)
 *   log    logf(x) -> __logf(x)      (and log(x) likewise)
 *   sin    sinf(x) -> __sinf(x)      cos  cosf(x) -> __cosf(x)
 *   pow    powf(x, y) -> __powf(x, y)  (pow(x, y) only when both are float)
 *   div    x / y -> __fdividef(x, y) when the division is done in float; `x /= y` with a float
 *          variable (or member, or side-effect-free element) on the left -> x = __fdividef(x, y)
 *   rsqrt  1.0f / sqrtf(x) -> rsqrtf(x)  (the numerator a literal 1, float or integer)
 * tanhf is left alone: CUDA has no fast tanh intrinsic in C++ (only the PTX instruction
 * tanh.approx.f32 through inline asm, which the CPU emulator cannot run), so `ops = {"tanh"}` is
 * refused with that reason.
 *
 * Requires: the recipe called kr.allow_lowering() (the driver enforces it). Only the chosen
 * kernel's body is rewritten (device functions it calls are not). A rewrite happens only where the
 * type is known to be float: float literals, float parameters, locals, elements of float
 * pointers/arrays, members of float vectors, casts and float-returning functions. Double
 * arithmetic (exp(d), x / 2.0) is never lowered; unknown types (template parameters, names
 * declared twice with different types) are left alone. Divisions of two literals are left to the
 * compiler (they fold, and __fdividef is not constexpr).
 *
 * Params: ops (names, default all: exp, log, sin, cos, pow, div, rsqrt).
 *
 * Precision: lowers. Error bounds of the intrinsics (CUDA C++ Programming Guide, "Intrinsic
 * Functions"): __expf 2 + floor(|1.173 x|) ulp; __fdividef 2 ulp for 2^-126 <= |y| <= 2^126 (it
 * returns 0 for 2^126 < |y| < 2^128, NaN for an infinite x); rsqrtf 2 ulp; __logf absolute error
 * 2^-21.41 on [0.5, 2], else 3 ulp; __sinf/__cosf absolute error 2^-21.41 on [-pi, pi], growing
 * outside; __powf is exp2(y * log2(x)) and its error grows with |y log2 x|. One ulp of a float is
 * at most 2^-23 (1.2e-7) relative, so exp (for |x| up to about 70), div and rsqrt stay within
 * ~1e-5 relative per element, and a relative L2 norm over a buffer (dominated by its large
 * elements) within the declared 1e-5. log, sin, cos and pow have absolute, not relative, bounds
 * (the relative error is unbounded near log(1) = 0 or sin(k*pi) = 0) or grow with the argument,
 * so when any of them is applied the pass states 1e-4 instead; the verifier checks the declared
 * tolerance on the problem's own data. */
#include <stdlib.h>
#include <string.h>

#include "frontend/loops.h"
#include "passes/pass.h"

/* ---- The rewrites ------------------------------------------------------------------------------- */

typedef struct Fn {
  const char *op;         /* its `ops` name */
  const char *fname;      /* the float function */
  const char *generic;    /* the overloaded name, rewritten only with float arguments */
  const char *fast;       /* the intrinsic */
} Fn;

static const Fn fns[] = {
  {"exp", "expf", "exp", "__expf"}, {"log", "logf", "log", "__logf"},
  {"sin", "sinf", "sin", "__sinf"}, {"cos", "cosf", "cos", "__cosf"},
  {"pow", "powf", "pow", "__powf"},
};

static const char *const op_names[] = {"exp", "log", "sin", "cos", "pow", "div", "rsqrt"};

typedef struct Fm {
  KrPassCtx *cx;
  KrLoops *lx;
  const KrValue *ops;
  size_t rewrites;
  bool loose;             /* a rewrite with an absolute or growing error bound was made */
  KrBuf notes;            /* why candidates were left alone, for the skip reason */
  size_t nnotes;
} Fm;

static bool enabled(Fm *f, const char *op) { return kr_pass_names_has(f->ops, op); }

static const char *pos_of(Fm *f, TSNode n) {
  uint32_t at = ts_node_start_byte(n);
  uint32_t line = kr_source_line_of(f->cx->src, at);
  return kr_arena_printf(f->cx->arena, "%u:%u", line + 1, at - f->cx->src->line_starts[line] + 1);
}

static void note(Fm *f, TSNode n, const char *why) {
  if (f->nnotes++ >= 4) return; /* the first few are enough to explain a refusal */
  char *t = kr_pass_text(f->cx, n);
  if (strlen(t) > 40) strcpy(t + 37, "...");
  kr_buf_printf(&f->notes, "%s'%s' at %s %s", f->nnotes > 1 ? "; " : "", t, pos_of(f, n), why);
}

static TSNode child(TSNode n, const char *name) { return kr_node_field(n, name); }

static TSNode unparen(KrPassCtx *cx, TSNode n) { return kr_node_strip_parens(cx->tree, n); }

static const char *op_text(KrPassCtx *cx, TSNode n) {
  return kr_node_operator(cx->tree, n, cx->arena);
}

static KrTyClass cls_of(Fm *f, TSNode n) {
  KrType t = kr_loops_type(f->lx, n);
  return t.depth || t.vector ? KR_TY_OTHER : t.cls;
}

static const char *type_word(KrTyClass c) {
  return c == KR_TY_DOUBLE ? "computes in double precision; fast_math lowers float only"
                           : "has a type krewrite cannot tell is float";
}

/* Which float function a call is (NULL: none, or not a float call, with a note). */
static const Fn *float_call(Fm *f, TSNode call) {
  TSNode fn = child(call, "function");
  TSNode args = child(call, "arguments");
  if (ts_node_is_null(fn) || ts_node_symbol(fn) != f->cx->tree->sym.identifier ||
      ts_node_is_null(args))
    return NULL;
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
    const Fn *x = &fns[i];
    bool exact = kr_node_text_is(f->cx->tree, fn, x->fname);
    bool generic = kr_node_text_is(f->cx->tree, fn, x->generic);
    if ((!exact && !generic) || !enabled(f, x->op)) continue;
    if (kr_loops_is_macro(f->lx, exact ? x->fname : x->generic)) {
      note(f, call, "calls a macro of this file, not the math function");
      return NULL;
    }
    if (exact) return x;
    /* exp(x): float only when every argument is float. */
    uint32_t n = ts_node_named_child_count(args);
    for (uint32_t j = 0; j < n; j++) {
      TSNode a = ts_node_named_child(args, j);
      if (ts_node_symbol(a) == f->cx->tree->sym.comment) continue;
      KrTyClass c = cls_of(f, a);
      if (c != KR_TY_FLOAT) {
        note(f, call, type_word(c == KR_TY_DOUBLE || c == KR_TY_INT ? KR_TY_DOUBLE : c));
        return NULL;
      }
    }
    return n ? x : NULL;
  }
  return NULL;
}

static bool is_one(Fm *f, TSNode n) {
  n = unparen(f->cx, n);
  if (ts_node_symbol(n) != f->cx->tree->sym.number_literal) return false;
  KrTyClass c = cls_of(f, n);
  if (c != KR_TY_FLOAT && c != KR_TY_INT) return false;
  const char *t = kr_pass_text(f->cx, n);
  char *end;
  double v = strtod(t, &end);
  return v == 1.0 && (*end == 0 || strchr("fFuUlL", *end));
}

/* `1.0f / sqrtf(x)`: the sqrtf call, or a null node. */
static TSNode rsqrt_arg(Fm *f, TSNode div) {
  TSNode none = {0};
  if (!enabled(f, "rsqrt") || !is_one(f, child(div, "left"))) return none;
  TSNode r = unparen(f->cx, child(div, "right"));
  if (ts_node_symbol(r) != f->cx->tree->sym.call_expression) return none;
  TSNode fn = child(r, "function");
  TSNode args = child(r, "arguments");
  if (ts_node_is_null(fn) || ts_node_is_null(args) || ts_node_named_child_count(args) != 1)
    return none;
  if (kr_loops_is_macro(f->lx, "sqrtf") || kr_loops_is_macro(f->lx, "sqrt")) return none;
  bool sqrtf_ = kr_node_text_is(f->cx->tree, fn, "sqrtf");
  bool sqrt_ = kr_node_text_is(f->cx->tree, fn, "sqrt") &&
               cls_of(f, ts_node_named_child(args, 0)) == KR_TY_FLOAT;
  return sqrtf_ || sqrt_ ? r : none;
}

static bool is_literal(Fm *f, TSNode n) {
  n = unparen(f->cx, n);
  TSSymbol s = ts_node_symbol(n);
  if (s == f->cx->tree->sym.unary_expression) return is_literal(f, child(n, "argument"));
  return s == f->cx->tree->sym.number_literal;
}

/* A float division worth lowering (notes the ones left alone). */
static bool float_div(Fm *f, TSNode n) {
  if (ts_node_symbol(n) != f->cx->tree->sym.binary_expression ||
      strcmp(op_text(f->cx, n), "/") != 0)
    return false;
  KrTyClass c = cls_of(f, n);
  if (kr_ty_is_integer(c)) return false;
  if (c != KR_TY_FLOAT) {
    if (enabled(f, "div") || enabled(f, "rsqrt")) note(f, n, type_word(c));
    return false;
  }
  if (is_literal(f, child(n, "left")) && is_literal(f, child(n, "right"))) return false;
  return enabled(f, "div") || !ts_node_is_null(rsqrt_arg(f, n));
}

/* An lvalue that can be read twice without changing anything: v, v.x, a[i], a[i].x with
 * identifiers, literals and members only. */
static bool plain_lvalue(Fm *f, TSNode n, int depth) {
  const KrSyms *y = &f->cx->tree->sym;
  n = unparen(f->cx, n);
  TSSymbol s = ts_node_symbol(n);
  if (depth > 8) return false;
  if (s == y->identifier || s == y->number_literal) return true;
  if (s == y->field_expression) return plain_lvalue(f, child(n, "argument"), depth + 1);
  if (s == y->subscript_expression) {
    TSNode idx = child(n, "indices");
    if (ts_node_is_null(idx)) idx = child(n, "index");
    if (ts_node_is_null(idx)) return false;
    if (ts_node_named_child_count(idx) == 1 && ts_node_symbol(idx) != y->identifier)
      idx = ts_node_named_child(idx, 0);
    return plain_lvalue(f, child(n, "argument"), depth + 1) && plain_lvalue(f, idx, depth + 1);
  }
  return false;
}

/* `x /= y` done in float. */
static bool float_div_assign(Fm *f, TSNode n) {
  if (ts_node_symbol(n) != f->cx->tree->sym.assignment_expression ||
      strcmp(op_text(f->cx, n), "/=") != 0 || !enabled(f, "div"))
    return false;
  TSNode l = child(n, "left"), r = child(n, "right");
  KrTyClass lc = cls_of(f, l), rc = cls_of(f, r);
  if (kr_ty_is_integer(lc)) return false;
  if (lc != KR_TY_FLOAT || (rc != KR_TY_FLOAT && !kr_ty_is_integer(rc))) {
    note(f, n, type_word(lc == KR_TY_FLOAT ? rc : lc));
    return false;
  }
  if (!plain_lvalue(f, l, 0)) {
    note(f, n, "has a left side that cannot be read twice safely");
    return false;
  }
  return true;
}

/* ---- Emitting ----------------------------------------------------------------------------------- */

static void emit(Fm *f, TSNode n, KrBuf *out);

static void emit_copy(Fm *f, TSNode n, KrBuf *out) {
  const char *t = f->cx->src->text;
  uint32_t at = ts_node_start_byte(n), end = ts_node_end_byte(n);
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode c = ts_node_child(n, i);
    kr_buf_append(out, t + at, ts_node_start_byte(c) - at);
    emit(f, c, out);
    at = ts_node_end_byte(c);
  }
  kr_buf_append(out, t + at, end - at);
}

/* Writes n's text with every rewrite inside it applied (n itself included). */
static void emit(Fm *f, TSNode n, KrBuf *out) {
  const KrSyms *y = &f->cx->tree->sym;
  TSSymbol s = ts_node_symbol(n);
  const Fn *fn;
  if (s == y->call_expression && (fn = float_call(f, n))) {
    f->rewrites++;
    if (strcmp(fn->op, "exp") != 0) f->loose = true; /* log, sin, cos, pow: see the header */
    kr_buf_puts(out, fn->fast);
    emit(f, child(n, "arguments"), out);
  } else if (float_div(f, n)) {
    f->rewrites++;
    TSNode sq = rsqrt_arg(f, n);
    if (!ts_node_is_null(sq)) {
      kr_buf_puts(out, "rsqrtf");
      emit(f, child(sq, "arguments"), out);
      return;
    }
    kr_buf_puts(out, "__fdividef(");
    emit(f, child(n, "left"), out);
    kr_buf_puts(out, ", ");
    emit(f, child(n, "right"), out);
    kr_buf_putc(out, ')');
  } else if (float_div_assign(f, n)) {
    f->rewrites++;
    emit(f, child(n, "left"), out);
    kr_buf_puts(out, " = __fdividef(");
    emit(f, child(n, "left"), out);
    kr_buf_puts(out, ", ");
    emit(f, child(n, "right"), out);
    kr_buf_putc(out, ')');
  } else {
    emit_copy(f, n, out);
  }
}

/* True when n itself is rewritten (then one edit covers it and everything inside it). Notes
 * only matter when nothing at all is rewritten, so their repetition in emit() is harmless. */
static bool rewrites_here(Fm *f, TSNode n) {
  if (ts_node_symbol(n) == f->cx->tree->sym.call_expression && float_call(f, n)) return true;
  return float_div(f, n) || float_div_assign(f, n);
}

/* Declarations that must stay constant expressions are not touched. */
static bool constexpr_decl(Fm *f, TSNode n) {
  if (ts_node_symbol(n) != f->cx->tree->sym.declaration) return false;
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode c = ts_node_child(n, i);
    if (ts_node_symbol(c) == f->cx->tree->sym.type_qualifier &&
        kr_node_text_is(f->cx->tree, c, "constexpr"))
      return true;
  }
  return false;
}

static void walk(Fm *f, TSNode n, bool edit, int depth) {
  if (depth > 400 || constexpr_decl(f, n)) return;
  if (rewrites_here(f, n)) {
    KrBuf b = {0};
    emit(f, n, &b);
    if (edit) kr_pass_replace_node(f->cx, n, b.data ? b.data : "");
    kr_buf_free(&b);
    return;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) walk(f, ts_node_named_child(n, i), edit, depth + 1);
}

/* ---- Entry points ------------------------------------------------------------------------------- */

static KrStatus check_ops(KrPassCtx *cx, const KrValue *ops) {
  for (size_t i = 0; i < ops->names.len; i++) {
    const char *o = ops->names.data[i];
    bool ok = false;
    for (size_t j = 0; j < sizeof op_names / sizeof *op_names; j++)
      if (strcmp(o, op_names[j]) == 0) ok = true;
    if (ok) continue;
    if (strcmp(o, "tanh") == 0)
      kr_diag_pos(cx->diag, KR_DIAG_ERROR, NULL, 0, 0,
                  "pass 'fast_math': 'tanh' cannot be lowered: CUDA has no fast tanh intrinsic in "
                  "C++ (only PTX tanh.approx.f32 through inline asm, which the CPU emulator "
                  "cannot run); valid ops: exp, log, sin, cos, pow, div, rsqrt");
    else
      kr_diag_pos(cx->diag, KR_DIAG_ERROR, NULL, 0, 0,
                  "pass 'fast_math': parameter 'ops' has no rewrite '%s'; valid ops: exp, log, "
                  "sin, cos, pow, div, rsqrt", o);
    return KR_ERR;
  }
  return KR_OK;
}

static KrStatus run(KrPassCtx *cx, bool edit) {
  const KrValue *ops = kr_pass_arg(cx, "ops");
  if (check_ops(cx, ops) != KR_OK) return KR_ERR;
  Fm f = {.cx = cx, .lx = kr_pass_loops(cx), .ops = ops};
  walk(&f, cx->kernel->body, edit, 0);
  KrStatus st = KR_OK;
  if (f.rewrites == 0) {
    const char *why = f.notes.len ? kr_arena_strndup(cx->arena, f.notes.data, f.notes.len)
                                  : "no float math function call or float division to lower";
    st = kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node),
                      "fast_math has nothing to lower in kernel '%s': %s", cx->kernel->name, why);
  } else if (edit && f.loose) {
    cx->tolerance = "1e-4";
  }
  kr_buf_free(&f.notes);
  return st;
}

static KrStatus check(KrPassCtx *cx) { return run(cx, false); }
static KrStatus apply(KrPassCtx *cx) { return run(cx, true); }

static const KrParamSpec params[] = {
  {.name = "ops", .type = KR_PARAM_NAMES, .def = "all",
   .doc = "which rewrites: exp, log, sin, cos, pow, div, rsqrt (default: all)"},
};

const KrPass kr_pass_fast_math = {
  .name = "fast_math",
  .summary = "float math through the fast intrinsics (__expf, __fdividef, rsqrtf, ...)",
  .doc = "expf/logf/sinf/cosf/powf -> __expf/__logf/__sinf/__cosf/__powf, float x / y -> "
         "__fdividef(x, y), 1.0f / sqrtf(x) -> rsqrtf(x), in the chosen kernel, where the type is "
         "known to be float (double is never lowered). Needs kr.allow_lowering(). Tolerance 1e-5 "
         "(exp, div, rsqrt); 1e-4 when log, sin, cos or pow is lowered (absolute error bounds).",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_LOWERS,
  .tolerance = "1e-5",
  .assumptions = "float math may use the hardware intrinsics' error bounds",
  .search = {
    .reason = "use fast-math intrinsics in %s (lowers precision: opted in)",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 180, [KR_SEARCH_COMPUTE] = 180, [KR_SEARCH_LATENCY] = 180},
  },
  .check = check,
  .apply = apply,
};
