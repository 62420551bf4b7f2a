/* passes/unroll.c: loop unrolling, by pragma or by duplicating the body.
 *
 * Before:                                   After (mode = "pragma", factor = 4):
 *   for (int k = 0; k < K; ++k)               #pragma unroll 4
 *     acc += a[k] * b[k];                     for (int k = 0; k < K; ++k)
 *                                               acc += a[k] * b[k];
 * After (mode = "text", a constant trip count of 3, `for (int k = 0; k < 3; ++k) s += w[k];`):
 *   { const int k = 0; s += w[k]; }
 *   { const int k = 1; s += w[k]; }
 *   { const int k = 2; s += w[k]; }
 * Each copy gets its own block with the induction variable as a constant, so the body's text is
 * kept byte for byte (no substitution inside it) and its locals stay private to each copy.
 *
 * Loops: `loop` (index into the kernel's loops in model order: `krewrite kernels` lists them) or
 * `var` (every for loop with that induction variable), or by default every innermost for loop
 * (loops that cannot take the rewrite are then left alone, and the pass refuses only when none
 * can). A loop that was asked for by `loop` or `var` and cannot take the rewrite makes the pass
 * refuse.
 *
 * Requires, for both modes: a for loop; no `#pragma unroll`/`nounroll` on it already; the
 * induction variable not modified in the body; the unroll factor (the trip count for a full
 * unroll) at most `max`. A full `#pragma unroll` (factor 0) needs a constant trip count (loops.h
 * says which bounds count as constant), since nvcc would ignore it otherwise.
 * For mode = "text", also: a canonical loop whose initializer declares only the induction
 * variable, a constant trip count of at least 1, no `break`/`continue` of this loop, no `goto`,
 * label or case label in the body, no `static` or `__shared__` declaration in the body (copies
 * would be distinct variables), and no other #pragma directly above the loop.
 *
 * Params: factor (int >= 0, default 0 = full), mode ("pragma" | "text", default "pragma"),
 * loop (int, default: see above), var (string, default: any), max (int, default 64).
 * Precision: exact (the same operations in the same order). */
#include <string.h>

#include "frontend/loops.h"
#include "passes/build.h"
#include "passes/pass.h"

typedef struct Plan {
  KrLoops *lx;
  long long factor, max;
  bool text, explicit_;
  KrVec(size_t) loops;
} Plan;

static const char *pos_at(KrPassCtx *cx, uint32_t at) {
  uint32_t line = kr_source_line_of(cx->src, at);
  return kr_arena_printf(cx->arena, "%u:%u", line + 1, at - cx->src->line_starts[line] + 1);
}

/* "loop 2 (for 'k' at 14:5)" */
static const char *loop_name(KrPassCtx *cx, size_t i) {
  const KrLoop *l = &cx->kernel->loops.data[i];
  static const char *const kinds[] = {"for", "while", "do-while", "range-for"};
  if (l->var)
    return kr_arena_printf(cx->arena, "loop %zu (%s '%s' at %u:%u)", i, kinds[l->kind], l->var,
                           l->line, l->col);
  return kr_arena_printf(cx->arena, "loop %zu (%s at %u:%u)", i, kinds[l->kind], l->line, l->col);
}

/* ---- Eligibility ---------------------------------------------------------------------------------- */

static bool has_child_loop(const KrKernel *k, size_t i) {
  for (size_t j = 0; j < k->loops.len; j++)
    if (k->loops.data[j].parent == (int)i) return true;
  return false;
}

/* A `static` or `__shared__` declaration inside n (not inside a lambda), or a null node. */
static TSNode private_storage(KrPassCtx *cx, TSNode n, int depth) {
  TSNode none = {0};
  if (depth > 400 || ts_node_symbol(n) == cx->tree->sym.lambda_expression) return none;
  if (ts_node_symbol(n) == cx->tree->sym.declaration) {
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
      TSNode c = ts_node_child(n, i);
      TSSymbol s = ts_node_symbol(c);
      if ((s == cx->tree->sym.storage_class_specifier || s == cx->tree->sym.type_qualifier) &&
          (kr_node_text_is(cx->tree, c, "static") || kr_node_text_is(cx->tree, c, "__shared__")))
        return n;
    }
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode r = private_storage(cx, ts_node_named_child(n, i), depth + 1);
    if (!ts_node_is_null(r)) return r;
  }
  return none;
}

static bool unroll_pragma(const char *p) {
  return p && (strncmp(p, "unroll", 6) == 0 || strncmp(p, "nounroll", 8) == 0);
}

/* NULL when loop i can take the rewrite, else why not (at *at). */
static const char *refusal(KrPassCtx *cx, Plan *p, size_t i, uint32_t *at) {
  const KrLoop *l = &cx->kernel->loops.data[i];
  const KrLoopInfo *li = kr_loops_info(p->lx, i);
  KrArena *a = cx->arena;
  *at = l->span.start;
  if (l->kind != KR_LOOP_FOR) return "it is not a for loop";
  if (unroll_pragma(l->pragma))
    return kr_arena_printf(a, "it already has '#pragma %s'", l->pragma);
  if (li->var_modified.found) {
    *at = li->var_modified.at;
    return kr_arena_printf(a, "the body modifies the induction variable: %s",
                           li->var_modified.what);
  }
  bool full = p->factor == 0 || p->text;
  if (full) {
    if (!li->canonical) {
      *at = li->why_at;
      return kr_arena_printf(a, "its trip count cannot be computed: %s", li->why);
    }
    if (li->trip_kind != KR_TRIP_CONST) {
      if (li->trip_kind == KR_TRIP_UNKNOWN) *at = li->trip_why_at;
      return kr_arena_printf(a, "its trip count is not a constant (%s), so %s",
                             li->trip_kind == KR_TRIP_SYMBOLIC ? li->trip_text : li->trip_why,
                             p->text ? "mode 'text' cannot unroll it"
                                     : "a full '#pragma unroll' would not unroll it; give a factor");
    }
    if (li->trip == 0) return "it never runs (trip count 0)";
    if (li->trip > p->max)
      return kr_arena_printf(a, "its trip count %lld is above the cap max = %lld", li->trip, p->max);
  }
  if (p->factor > p->max)
    return kr_arena_printf(a, "the factor %lld is above the cap max = %lld", p->factor, p->max);
  if (!p->text) return NULL;
  if (p->factor != 0 && p->factor != li->trip)
    return kr_arena_printf(a, "mode 'text' unrolls fully; factor must be 0 or the trip count "
                              "%lld, not %lld", li->trip, p->factor);
  if (!li->var_declared)
    return kr_arena_printf(a, "'%s' is declared outside the loop, and the copies would not leave "
                              "its final value", li->var);
  if (!li->init_single) return "its initializer declares more than the induction variable";
  const KrWhere *w[] = {&li->brk, &li->cont, &li->jump};
  for (size_t k = 0; k < 3; k++)
    if (w[k]->found) {
      *at = w[k]->at;
      return kr_arena_printf(a, "the body has %s, which the copies cannot keep", w[k]->what);
    }
  TSNode st = private_storage(cx, ts_node_child_by_field_name(l->node, "body", 4), 0);
  if (!ts_node_is_null(st)) {
    *at = ts_node_start_byte(st);
    return kr_arena_printf(a, "the body declares a static or __shared__ variable at %s, and each "
                              "copy would get its own", pos_at(cx, *at));
  }
  if (l->pragma) return kr_arena_printf(a, "'#pragma %s' precedes it", l->pragma);
  return NULL;
}

/* ---- Selection ---------------------------------------------------------------------------------- */

static KrStatus bad_param(KrPassCtx *cx, const char *msg) {
  kr_diag_pos(cx->diag, KR_DIAG_ERROR, NULL, 0, 0, "pass 'unroll': %s", msg);
  return KR_ERR;
}

static const char *loop_list(KrPassCtx *cx) {
  KrBuf b = {0};
  for (size_t i = 0; i < cx->kernel->loops.len; i++)
    kr_buf_printf(&b, "%s%s", i ? ", " : "", loop_name(cx, i));
  const char *s = b.len ? kr_arena_strndup(cx->arena, b.data, b.len) : "none";
  kr_buf_free(&b);
  return s;
}

/* `loop` = -1 and `var` = "" mean "not chosen": the values decide, not `given`, because a
 * replayed run passes every parameter explicitly. */
static bool selected(KrPassCtx *cx, size_t i, bool by_loop, bool by_var) {
  const KrLoop *l = &cx->kernel->loops.data[i];
  if (by_loop && (long long)i != kr_pass_arg(cx, "loop")->i) return false;
  if (by_var && (!l->var || strcmp(l->var, kr_pass_arg(cx, "var")->s) != 0)) return false;
  if (!by_loop && !by_var) return l->kind == KR_LOOP_FOR && !has_child_loop(cx->kernel, i);
  return true;
}

static KrStatus plan(KrPassCtx *cx, Plan *p) {
  const KrValue *loop = kr_pass_arg(cx, "loop"), *var = kr_pass_arg(cx, "var");
  p->lx = kr_pass_loops(cx);
  p->factor = kr_pass_arg(cx, "factor")->i;
  p->max = kr_pass_arg(cx, "max")->i;
  p->text = strcmp(kr_pass_arg(cx, "mode")->s, "text") == 0;
  bool by_loop = loop->i >= 0, by_var = *var->s != 0;
  p->explicit_ = by_loop || by_var;
  const KrKernel *k = cx->kernel;
  if (by_loop && (size_t)loop->i >= k->loops.len)
    return bad_param(cx, kr_arena_printf(cx->arena, "kernel '%s' has no loop %lld (loops: %s)",
                                         k->name, loop->i, loop_list(cx)));
  KrVec(size_t) refused = {0};
  KrVec(const char *) why = {0};
  KrVec(uint32_t) where = {0};
  for (size_t i = 0; i < k->loops.len; i++) {
    if (!selected(cx, i, by_loop, by_var)) continue;
    uint32_t at;
    const char *r = refusal(cx, p, i, &at);
    if (!r) {
      kr_vec_push(cx->arena, &p->loops, i);
      continue;
    }
    kr_vec_push(cx->arena, &refused, i);
    kr_vec_push(cx->arena, &why, r);
    kr_vec_push(cx->arena, &where, at);
  }
  if (by_var && p->loops.len + refused.len == 0)
    return bad_param(cx, kr_arena_printf(cx->arena, "kernel '%s' has no loop over '%s'%s (loops: "
                                         "%s)", k->name, var->s,
                                         by_loop ? " with that index" : "", loop_list(cx)));
  if (refused.len && (p->explicit_ || p->loops.len == 0)) {
    for (size_t j = 0; j < refused.len; j++)
      kr_pass_skip(cx, where.data[j], "unroll cannot apply to %s: %s",
                   loop_name(cx, refused.data[j]), why.data[j]);
    return KR_SKIP;
  }
  if (p->loops.len == 0)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' has no for loop to unroll", k->name);
  return KR_OK;
}

/* ---- Rewriting ---------------------------------------------------------------------------------- */

/* `#pragma unroll N` on a line of its own directly above the loop (the loop is moved to a new
 * line when other code precedes it on its line). */
static void add_pragma(KrPassCtx *cx, Plan *p, size_t i) {
  const KrLoop *l = &cx->kernel->loops.data[i];
  const char *indent = kr_pass_indent_at(cx, l->span.start);
  const char *pragma = p->factor ? kr_arena_printf(cx->arena, "#pragma unroll %lld", p->factor)
                                 : "#pragma unroll";
  uint32_t line_start = cx->src->line_starts[kr_source_line_of(cx->src, l->span.start)];
  bool own_line = strlen(indent) == l->span.start - line_start;
  uint32_t at = own_line ? line_start : l->span.start;
  KrCode c;
  kr_code_at(&c, cx, at);
  if (!own_line) kr_code_newline(&c);
  kr_code_line(&c, "%s", pragma);
  if (!own_line) kr_code_indent(&c); /* the loop, now on its own line */
  kr_code_replace(&c, at, at);
}

/* The indentation of the line holding the first statement of a block, when that statement starts
 * a line after the opening brace's; NULL when the block is written on one line. */
static const char *body_indent(KrPassCtx *cx, TSNode block) {
  TSNode first = ts_node_named_child(block, 0);
  if (ts_node_is_null(first)) return NULL;
  uint32_t at = ts_node_start_byte(first);
  if (kr_source_line_of(cx->src, at) == kr_source_line_of(cx->src, ts_node_start_byte(block)))
    return NULL;
  return kr_pass_indent_at(cx, at);
}

/* The loop becomes one block per iteration, each declaring the induction variable as that
 * iteration's constant; the body's text is carried over as written. */
static void add_copies(KrPassCtx *cx, Plan *p, size_t i) {
  const KrLoop *l = &cx->kernel->loops.data[i];
  const KrLoopInfo *li = kr_loops_info(p->lx, i);
  TSNode body = ts_node_child_by_field_name(l->node, "body", 4);
  const char *type = li->var_type;
  if (strcmp(type, "auto") == 0) type = kr_ty_spelling(li->var_cls);
  bool block = ts_node_symbol(body) == cx->tree->sym.compound_statement;
  const char *inner = kr_pass_text(cx, body), *bind = block ? body_indent(cx, body) : NULL;
  if (block) inner = kr_arena_strndup(cx->arena, inner + 1, strlen(inner) - 2); /* drop { } */
  KrCode c;
  kr_code_at(&c, cx, l->span.start);
  bool wrap = !kr_loops_in_block(p->lx, i);
  if (wrap) kr_code_puts(&c, "{");
  for (long long t = 0; t < li->trip; t++) {
    long long v = li->init_v + t * li->stride_v;
    if (t || wrap) {
      kr_code_newline(&c);
      kr_code_indent(&c);
    }
    const char *decl = kr_arena_printf(cx->arena, "const %s %s = %lld;", type, li->var, v);
    if (block && bind) {
      kr_code_puts(&c, "{");
      kr_code_newline(&c);
      kr_code_raw(&c, bind);
      kr_code_raw(&c, decl);
      kr_code_raw(&c, inner);
      kr_code_raw(&c, "}");
    } else if (block) {
      kr_code_printf(&c, "{ %s", decl);
      kr_code_raw(&c, inner);
      kr_code_raw(&c, "}");
    } else {
      kr_code_printf(&c, "{ %s %s }", decl, inner);
    }
  }
  if (wrap) {
    kr_code_newline(&c);
    kr_code_puts(&c, "}");
  }
  /* The first copy replaces the loop where it starts, after the line's indentation. */
  kr_code_replace(&c, l->span.start, l->span.end);
}

static KrStatus check(KrPassCtx *cx) {
  Plan p = {0};
  return plan(cx, &p);
}

static KrStatus apply(KrPassCtx *cx) {
  Plan p = {0};
  KrStatus st = plan(cx, &p);
  if (st != KR_OK) return st;
  for (size_t j = 0; j < p.loops.len; j++) {
    if (p.text) add_copies(cx, &p, p.loops.data[j]);
    else add_pragma(cx, &p, p.loops.data[j]);
  }
  return KR_OK;
}

static const KrParamSpec params[] = {
  {.name = "factor", .type = KR_PARAM_INT, .def = "0", .min = 0, .max = 4096,
   .doc = "unroll factor; 0 unrolls fully (needs a constant trip count)"},
  {.name = "mode", .type = KR_PARAM_STRING, .def = "pragma", .choices = "pragma|text",
   .doc = "'pragma': add #pragma unroll; 'text': duplicate the body (full unroll only)"},
  {.name = "loop", .type = KR_PARAM_INT, .def = "-1", .min = -1, .max = 1000000,
   .doc = "which loop (index into the kernel's loops in model order); default: every innermost "
          "for loop"},
  {.name = "var", .type = KR_PARAM_STRING, .def = "",
   .doc = "which loops, by induction variable name; default: any"},
  {.name = "max", .type = KR_PARAM_INT, .def = "64", .min = 1, .max = 4096,
   .doc = "the largest unroll factor (or full trip count) allowed"},
};

const KrPass kr_pass_unroll = {
  .name = "unroll",
  .summary = "unroll loops with #pragma unroll or by duplicating the body",
  .doc = "Adds '#pragma unroll N' before the chosen for loops, or (mode 'text') replaces a loop "
         "with a constant trip count by one block per iteration holding the induction variable "
         "as a constant. Refuses loops that modify their induction variable, already carry an "
         "unroll pragma, exceed the cap, or (text) have an unknown trip count, break, continue "
         "or goto.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .search = {
    .reason = "unroll the inner loops of %s for more independent work per iteration",
    .points = {{"factor=4", "{ factor = 4 }"}, {"factor=2", "{ factor = 2 }"}, {"full", "{ factor = 0 }"}},
    .rank = {[KR_SEARCH_MEMORY] = 170, [KR_SEARCH_COMPUTE] = 130, [KR_SEARCH_LATENCY] = 130},
  },
  .check = check,
  .apply = apply,
};
