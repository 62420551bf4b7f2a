/* passes/index_precompute.c: hoist loop-invariant index arithmetic out of loops ("index
 * precomputation" in SEEDS.md), so each iteration adds the loop's own part to a base computed
 * once.
 *
 * Before:                                        After:
 *   for (int j = 0; j < W; ++j)                    const int kr_idx0 = (b * C + c) * H * W + i * W;
 *     y[(b * C + c) * H * W + i * W + j] = …;      for (int j = 0; j < W; ++j)
 *                                                    y[kr_idx0 + j] = …;
 *
 * How: every array index inside a chosen loop is read as a sum of terms (through + and -, with
 * their signs). A term is invariant when it reads only literals, CUDA built-in indices,
 * constants, and parameters or locals the loop never assigns, declares, or lets escape (loops.h,
 * kr_loops_invariant); memory reads and calls never are, nor divisions or remainders by anything
 * but a non-zero constant: the hoisted value is computed even when the loop does not run, and a
 * division by zero there would change the program. Other integer arithmetic cannot fault, and a
 * value computed for a loop that does not run is simply unused. The invariant terms move to a `const` local declared just before the loop (before its
 * #pragma lines; a loop that is the unbraced body of another statement gets braces), named
 * kr_idx<N> with N chosen so that no identifier, macro or word in the file has that name.
 * Identical hoisted expressions before the same loop share one local (indices reused by several
 * accesses are computed once). As a second, independent witness, the affine analysis
 * (affine.h) must agree that each hoisted term is invariant in the loop whenever it can read the
 * term as an affine form; on disagreement the index is left alone.
 *
 * Exactness: when the invariant terms form one subtree of the index (`(b*C + c)*H*W + i*W` in
 * `(b*C + c)*H*W + i*W + j`), that very subtree is evaluated earlier: the same operations on the
 * same values in the same types, so no overflow or conversion can differ; the local's type is the
 * subtree's type (spelled when known, else `auto`). When the invariant terms are spread over the
 * sum (`j + i*W + base`), the sum is reordered; that is done only when every term and the whole
 * index have one integer type (so no conversion moves: mixing int and size_t terms is refused,
 * since regrouping would change where the widening happens), and it is exact in the machine's
 * modular arithmetic; for signed types a regrouped partial sum could overflow where the original
 * did not, which C++ leaves undefined, so that case is recorded as an assumption.
 *
 * Params: loop (int, default -1: every loop, each index hoisted out of its innermost loop; given:
 * hoist out of that loop every index inside it, nested loops included), min_ops (int, default
 * 2: hoist only invariant parts with at least this many arithmetic operators).
 * Precision: exact. */
#include <string.h>

#include "frontend/affine.h"
#include "frontend/loops.h"
#include "passes/build.h"
#include "passes/pass.h"

/* ---- State -------------------------------------------------------------------------------------- */

typedef struct Term {
  TSNode node;        /* as written, parentheses included */
  int sign;           /* +1, or -1 when subtracted */
  bool inv;
} Term;

typedef struct Sum {
  TSNode node;        /* a + or - node (or the parentheses around one) */
  size_t first, last; /* the terms it covers */
} Sum;

typedef KrVec(Term) Terms;
typedef KrVec(Sum) Sums;

typedef struct Hoist {
  int loop;
  const char *type, *expr, *name;
} Hoist;

typedef struct Ip {
  KrPassCtx *cx;
  KrLoops *lx;
  KrAffineCtx *ac;
  long long min_ops;
  int only_loop;               /* -1: each index's innermost loop */
  KrNameSet *varying;          /* per loop, computed on first use */
  bool *varying_done;
  KrVec(Hoist) hoists;
  KrVec(KrEdit) uses;          /* index rewrites, applied only in apply() */
  bool reordered_signed;
  int next_name;
  KrBuf notes;
  size_t nnotes, candidates;
} Ip;

static const KrSyms *syms(Ip *ip) { return &ip->cx->tree->sym; }

static TSNode fld(TSNode n, const char *name) { return kr_node_field(n, name); }

static TSNode unparen(Ip *ip, TSNode n) { return kr_node_strip_parens(ip->cx->tree, n); }

static const char *op_of(Ip *ip, TSNode n) {
  return kr_node_operator(ip->cx->tree, n, ip->cx->arena);
}

/* Node text on one line (runs of blanks folded). */
static const char *flat(Ip *ip, TSNode n) {
  const char *t = kr_pass_text(ip->cx, n);
  char *out = kr_arena_alloc(ip->cx->arena, strlen(t) + 1), *w = out;
  bool space = false;
  for (; *t; t++) {
    if (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r') {
      space = w != out;
      continue;
    }
    if (space) *w++ = ' ';
    space = false;
    *w++ = *t;
  }
  *w = 0;
  return out;
}

static const char *pos(Ip *ip, uint32_t at) {
  uint32_t line = kr_source_line_of(ip->cx->src, at);
  return kr_arena_printf(ip->cx->arena, "%u:%u", line + 1, at - ip->cx->src->line_starts[line] + 1);
}

static const char *loop_name(Ip *ip, int i) {
  const KrLoop *l = &ip->cx->kernel->loops.data[i];
  if (l->var)
    return kr_arena_printf(ip->cx->arena, "loop %d (for '%s' at %u:%u)", i, l->var, l->line, l->col);
  return kr_arena_printf(ip->cx->arena, "loop %d (at %u:%u)", i, l->line, l->col);
}

static void note(Ip *ip, TSNode sub, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(Ip *ip, TSNode sub, const char *fmt, ...) {
  if (ip->nnotes++ >= 4) return; /* a few reasons explain a refusal; more is noise */
  va_list ap;
  va_start(ap, fmt);
  const char *msg = kr_arena_vprintf(ip->cx->arena, fmt, ap);
  va_end(ap);
  kr_buf_printf(&ip->notes, "%s'%s' at %s: %s", ip->nnotes > 1 ? "; " : "", flat(ip, sub),
                pos(ip, ts_node_start_byte(sub)), msg);
}

static const KrNameSet *varying(Ip *ip, int loop) {
  if (!ip->varying_done[loop]) {
    kr_loops_varying(ip->lx, (size_t)loop, &ip->varying[loop]);
    ip->varying_done[loop] = true;
  }
  return &ip->varying[loop];
}

/* ---- Reading an index --------------------------------------------------------------------------- */

static void flatten(Ip *ip, TSNode n, int sign, Terms *terms, Sums *sums, int depth) {
  TSNode s = unparen(ip, n);
  const char *op = ts_node_symbol(s) == syms(ip)->binary_expression ? op_of(ip, s) : "";
  if (depth < 200 && (strcmp(op, "+") == 0 || strcmp(op, "-") == 0)) {
    size_t first = terms->len;
    flatten(ip, fld(s, "left"), sign, terms, sums, depth + 1);
    flatten(ip, fld(s, "right"), op[0] == '-' ? -sign : sign, terms, sums, depth + 1);
    Sum x = {.node = n, .first = first, .last = terms->len - 1};
    kr_vec_push(ip->cx->arena, sums, x);
    return;
  }
  Term t = {.node = n, .sign = sign};
  kr_vec_push(ip->cx->arena, terms, t);
}

/* Arithmetic operators in an expression (parentheses and casts are free). */
static int count_ops(Ip *ip, TSNode n, int depth) {
  if (depth > 200) return 0;
  TSSymbol s = ts_node_symbol(n);
  int c = s == syms(ip)->binary_expression || s == syms(ip)->unary_expression;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) c += count_ops(ip, ts_node_named_child(n, i), depth + 1);
  return c;
}

/* A division or remainder whose divisor is not a non-zero constant, or a comment, inside n (or a
 * null node). A division by zero evaluated before a loop that would not have run changes the
 * program; a comment would not survive the one-line declaration. */
static TSNode unsafe_part(Ip *ip, TSNode n, int depth) {
  TSNode none = {0};
  if (depth > 200) return none;
  TSSymbol s = ts_node_symbol(n);
  if (s == syms(ip)->comment) return n;
  if (s == syms(ip)->binary_expression) {
    const char *op = op_of(ip, n);
    long long v;
    if ((strcmp(op, "/") == 0 || strcmp(op, "%") == 0) &&
        !(kr_loops_const(ip->lx, fld(n, "right"), &v) && v != 0))
      return n;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode r = unsafe_part(ip, ts_node_named_child(n, i), depth + 1);
    if (!ts_node_is_null(r)) return r;
  }
  return none;
}

/* Is the term invariant in `loop`? When not, *why says what stops it and *boring is set when that
 * is only the induction variable of `loop` or of a loop inside it (nothing to report then). */
static bool term_invariant(Ip *ip, const Term *t, int loop, const char **why, bool *boring) {
  TSNode c;
  KrArena *a = ip->cx->arena;
  *boring = false;
  if (!kr_loops_invariant(ip->lx, t->node, varying(ip, loop), &c)) {
    const char *name = flat(ip, c);
    const KrKernel *k = ip->cx->kernel;
    if (ts_node_symbol(c) != syms(ip)->identifier) {
      *why = kr_arena_printf(a, "'%s' reads memory, calls a function or has a side effect", name);
      return false;
    }
    if (!kr_names_has(varying(ip, loop), name)) {
      *why = kr_arena_printf(a, "'%s' is not a parameter, local or constant of the kernel", name);
      return false;
    }
    for (size_t i = 0; i < k->loops.len; i++)
      for (int l = (int)i; l >= 0; l = k->loops.data[l].parent)
        if (l == loop && k->loops.data[i].var && strcmp(k->loops.data[i].var, name) == 0)
          *boring = true;
    *why = kr_arena_printf(a, "'%s' changes in %s", name, loop_name(ip, loop));
    return false;
  }
  TSNode u = unsafe_part(ip, t->node, 0);
  if (!ts_node_is_null(u)) {
    *why = ts_node_symbol(u) == syms(ip)->comment
             ? "it holds a comment"
             : kr_arena_printf(a, "'%s' divides by a value that is not a non-zero constant, and "
                                  "the loop might not run", flat(ip, u));
    return false;
  }
  /* The affine analysis, where it can read the term, must agree. */
  const KrAffine *f = kr_affine_of(ip->ac, t->node);
  if (f->ok && !kr_affine_invariant_in(ip->ac, f, loop)) {
    *why = kr_arena_printf(a, "the affine analysis finds '%s' varies in %s", flat(ip, t->node),
                           loop_name(ip, loop));
    return false;
  }
  return true;
}

static KrTyClass int_class(Ip *ip, TSNode n) {
  KrType t = kr_loops_type(ip->lx, n);
  return t.depth || t.vector || !kr_ty_is_integer(t.cls) ? KR_TY_UNKNOWN : t.cls;
}

/* ---- Hoisting ------------------------------------------------------------------------------------ */

static bool name_taken(Ip *ip, const char *name) {
  if (kr_loops_name_used(ip->lx, name)) return true;
  for (size_t i = 0; i < ip->hoists.len; i++)
    if (strcmp(ip->hoists.data[i].name, name) == 0) return true;
  return false;
}

/* The local holding `expr` before `loop`: an existing one, or a new one. */
static const char *local_for(Ip *ip, int loop, const char *type, const char *expr) {
  for (size_t i = 0; i < ip->hoists.len; i++) {
    const Hoist *h = &ip->hoists.data[i];
    if (h->loop == loop && strcmp(h->type, type) == 0 && strcmp(h->expr, expr) == 0)
      return h->name;
  }
  const char *name;
  do name = kr_arena_printf(ip->cx->arena, "kr_idx%d", ip->next_name++);
  while (name_taken(ip, name));
  Hoist h = {.loop = loop, .type = type, .expr = expr, .name = name};
  kr_vec_push(ip->cx->arena, &ip->hoists, h);
  return name;
}

static void use(Ip *ip, TSNode n, const char *text) {
  KrEdit e = {.start = ts_node_start_byte(n), .end = ts_node_end_byte(n), .text = text};
  kr_vec_push(ip->cx->arena, &ip->uses, e);
}

static bool overlaps_use(Ip *ip, TSNode n) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  for (size_t i = 0; i < ip->uses.len; i++)
    if (s < ip->uses.data[i].end && ip->uses.data[i].start < e) return true;
  return false;
}

/* The subtree covering exactly terms p..q, or a null node. */
static TSNode subtree(const Term *terms, const Sum *sums, size_t nsums, size_t p, size_t q) {
  TSNode none = {0};
  if (p == q) return terms[p].node;
  for (size_t i = 0; i < nsums; i++)
    if (sums[i].first == p && sums[i].last == q) return sums[i].node;
  return none;
}

static const char *signed_term(Ip *ip, const Term *t, bool first) {
  const char *x = kr_pass_text(ip->cx, t->node);
  if (first) return t->sign < 0 ? kr_arena_printf(ip->cx->arena, "-%s", x) : x;
  return kr_arena_printf(ip->cx->arena, " %c %s", t->sign < 0 ? '-' : '+', x);
}

/* The invariant terms are spread over the sum: regroup them, when one integer type makes that
 * exact. */
static const char *type_words(KrTyClass c) {
  const char *s = kr_ty_spelling(c);
  return s ? s : "of unknown type";
}

static void reorder(Ip *ip, TSNode sub, TSNode idx, const Term *terms, size_t n, int loop) {
  KrTyClass c = int_class(ip, idx);
  for (size_t i = 0; i < n && c != KR_TY_UNKNOWN; i++) {
    KrTyClass t = int_class(ip, terms[i].node);
    if (t == c) continue;
    note(ip, sub, "its terms are not all of one integer type ('%s' is %s, the whole index %s), so "
                  "regrouping them could change the result", flat(ip, terms[i].node),
         type_words(t), type_words(c));
    return;
  }
  if (c == KR_TY_UNKNOWN) {
    note(ip, sub, "the type of the index is not known, so its terms cannot be regrouped");
    return;
  }
  KrBuf h = {0}, v = {0};
  size_t nh = 0;
  for (size_t i = 0; i < n; i++) {
    if (terms[i].inv) kr_buf_puts(&h, signed_term(ip, &terms[i], nh++ == 0));
    else kr_buf_puts(&v, signed_term(ip, &terms[i], false));
  }
  const char *expr = kr_arena_strndup(ip->cx->arena, h.data, h.len);
  const char *name = local_for(ip, loop, kr_ty_spelling(c), expr);
  use(ip, idx, kr_arena_printf(ip->cx->arena, "%s%.*s", name, (int)v.len, v.data ? v.data : ""));
  kr_buf_free(&h);
  kr_buf_free(&v);
  if (c == KR_TY_INT || c == KR_TY_LONG) ip->reordered_signed = true;
}

/* One array index inside loop `loop`. */
static void consider(Ip *ip, TSNode sub, TSNode idx, int loop) {
  Terms terms = {0};
  Sums sums = {0};
  ip->candidates++;
  flatten(ip, idx, 1, &terms, &sums, 0);
  size_t p = terms.len, q = 0, ninv = 0;
  int ops = 0;
  const char *why = NULL;
  for (size_t i = 0; i < terms.len; i++) {
    const char *w = NULL;
    bool boring = false;
    terms.data[i].inv = term_invariant(ip, &terms.data[i], loop, &w, &boring);
    if (!terms.data[i].inv) {
      if (!why && !boring) why = w;
      continue;
    }
    ninv++;
    ops += count_ops(ip, terms.data[i].node, 0);
    if (i < p) p = i;
    q = i;
  }
  if (ninv == 0) {
    if (why) note(ip, sub, "no term is invariant: %s", why);
    return;
  }
  ops += (int)ninv - 1 + (terms.data[p].sign < 0);
  if (ops < ip->min_ops) {
    note(ip, sub, "its invariant part has %d operator%s, fewer than min_ops = %lld", ops,
         ops == 1 ? "" : "s", ip->min_ops);
    return;
  }
  if (overlaps_use(ip, idx)) return; /* inside an index already being rewritten */
  TSNode st = q - p + 1 == ninv ? subtree(terms.data, sums.data, sums.len, p, q) : (TSNode){0};
  if (ts_node_is_null(st)) {
    reorder(ip, sub, idx, terms.data, terms.len, loop);
    return;
  }
  /* One subtree: evaluate exactly it, earlier. */
  KrTyClass c = int_class(ip, st);
  const char *type = kr_ty_spelling(c) ? kr_ty_spelling(c) : "auto";
  use(ip, st, local_for(ip, loop, type, flat(ip, st)));
}

/* ---- Walking the kernel --------------------------------------------------------------------------- */

static int loop_of_node(Ip *ip, TSNode n) {
  const KrKernel *k = ip->cx->kernel;
  for (size_t i = 0; i < k->loops.len; i++)
    if (ts_node_eq(k->loops.data[i].node, n)) return (int)i;
  return -1;
}

/* The loop a subscript is hoisted out of: the given one when it holds the subscript in its body,
 * else (no loop given) the innermost loop whose body holds it; -1 for none. */
static int target_loop(Ip *ip, TSNode sub) {
  int innermost = -1;
  for (TSNode p = ts_node_parent(sub); !ts_node_is_null(p); p = ts_node_parent(p)) {
    int l = loop_of_node(ip, p);
    if (l < 0) continue;
    if (!kr_node_within(sub, fld(p, "body"))) continue; /* in the loop's header */
    if (ip->only_loop >= 0 && l == ip->only_loop) return l;
    if (innermost < 0) innermost = l;
  }
  return ip->only_loop >= 0 ? -1 : innermost;
}

static void walk(Ip *ip, TSNode n, int depth) {
  if (depth > 400 || ts_node_symbol(n) == syms(ip)->lambda_expression) return;
  if (ts_node_symbol(n) == syms(ip)->subscript_expression) {
    TSNode list = fld(n, "indices");
    int loop = target_loop(ip, n);
    if (loop >= 0 && !ts_node_is_null(list) && ts_node_named_child_count(list) == 1)
      consider(ip, n, ts_node_named_child(list, 0), loop);
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) walk(ip, ts_node_named_child(n, i), depth + 1);
}

/* ---- Entry points ------------------------------------------------------------------------------- */

static KrStatus plan(KrPassCtx *cx, Ip *ip) {
  const KrKernel *k = cx->kernel;
  const KrValue *loop = kr_pass_arg(cx, "loop");
  ip->cx = cx;
  ip->lx = kr_pass_loops(cx);
  ip->ac = kr_pass_affine(cx);
  ip->min_ops = kr_pass_arg(cx, "min_ops")->i;
  /* -1 means "each index's innermost loop": the value, not `given`, decides, because a replayed
   * run passes every parameter explicitly. */
  ip->only_loop = loop->i >= 0 ? (int)loop->i : -1;
  ip->varying = kr_arena_alloc(cx->arena, (k->loops.len + 1) * sizeof *ip->varying);
  ip->varying_done = kr_arena_alloc(cx->arena, k->loops.len + 1);
  if (loop->i >= 0 && (size_t)loop->i >= k->loops.len) {
    kr_diag_pos(cx->diag, KR_DIAG_ERROR, NULL, 0, 0,
                "pass 'index_precompute': kernel '%s' has no loop %lld (it has %zu)", k->name,
                loop->i, k->loops.len);
    return KR_ERR;
  }
  if (k->loops.len == 0)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' has no loops to hoist index arithmetic "
                                           "out of", k->name);
  walk(ip, k->body, 0);
  KrStatus st = KR_OK;
  if (ip->hoists.len == 0) {
    const char *where = ip->only_loop >= 0 ? loop_name(ip, ip->only_loop) : "any loop";
    if (ip->candidates == 0)
      st = kr_pass_skip(cx, k->span.start, "kernel '%s' has no array index inside %s", k->name,
                        where);
    else
      st = kr_pass_skip(cx, k->span.start, "nothing invariant to hoist out of %s in kernel '%s': "
                                           "%.*s", where, k->name, (int)ip->notes.len,
                        ip->notes.data);
  }
  kr_buf_free(&ip->notes);
  return st;
}

/* The declarations of the values hoisted out of loop l go before it (passes/build.h). */
static void declare(KrPassCtx *cx, Ip *ip, int l) {
  KrVec(const char *) lines = {0};
  for (size_t i = 0; i < ip->hoists.len; i++) {
    const Hoist *h = &ip->hoists.data[i];
    if (h->loop != l) continue;
    kr_vec_push(cx->arena, &lines,
                kr_arena_printf(cx->arena, "const %s %s = %s;", h->type, h->name, h->expr));
  }
  kr_code_before(cx, cx->kernel->loops.data[l].node, lines.data, lines.len);
}

static KrStatus check(KrPassCtx *cx) {
  Ip ip = {0};
  return plan(cx, &ip);
}

static KrStatus apply(KrPassCtx *cx) {
  Ip ip = {0};
  KrStatus st = plan(cx, &ip);
  if (st != KR_OK) return st;
  for (size_t i = 0; i < ip.uses.len; i++)
    kr_pass_replace(cx, ip.uses.data[i].start, ip.uses.data[i].end, ip.uses.data[i].text);
  for (size_t l = 0; l < cx->kernel->loops.len; l++) {
    for (size_t i = 0; i < ip.hoists.len; i++)
      if (ip.hoists.data[i].loop == (int)l) {
        declare(cx, &ip, (int)l);
        break;
      }
  }
  if (ip.reordered_signed)
    kr_pass_assume(cx, "regrouped signed index sums do not overflow in a partial sum (the final "
                       "index is unchanged in two's complement)");
  return KR_OK;
}

static const KrParamSpec params[] = {
  {.name = "loop", .type = KR_PARAM_INT, .def = "-1", .min = -1, .max = 1000000,
   .doc = "the loop to hoist out of (index into the kernel's loops); default: each index's "
          "innermost loop"},
  {.name = "min_ops", .type = KR_PARAM_INT, .def = "2", .min = 1, .max = 1000,
   .doc = "hoist only invariant parts with at least this many arithmetic operators"},
};

const KrPass kr_pass_index_precompute = {
  .name = "index_precompute",
  .summary = "hoist loop-invariant index arithmetic into const locals before the loop",
  .doc = "Array indices inside a loop are split into the loop's own part and an invariant base, "
         "which is computed once before the loop into a const local (kr_idxN) and reused by every "
         "index with the same base: y[(b*C + c)*H*W + i*W + j] in a loop over j becomes "
         "y[kr_idx0 + j]. Exact: the hoisted subtree is evaluated as written; terms are regrouped "
         "only when they all have one integer type.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .search = {
    .reason = "hoist the invariant index arithmetic of %s out of its loops",
    .points = {{"min_ops=1", "{ min_ops = 1 }"}, {"min_ops=2", "{ min_ops = 2 }"}},
    .rank = {[KR_SEARCH_MEMORY] = 160, [KR_SEARCH_COMPUTE] = 140, [KR_SEARCH_LATENCY] = 160},
  },
  .check = check,
  .apply = apply,
};
