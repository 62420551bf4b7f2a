/* passes/reduction.c: the reduction emitter and its checks (reduction.h). */
#include "passes/reduction.h"

#include <stdarg.h>
#include <string.h>

#include "frontend/affine.h"

/* ---- Small helpers -------------------------------------------------------------------------------- */

static bool is(const KrTree *t, TSNode n, TSSymbol s) { return !ts_node_is_null(n) && ts_node_symbol(n) == s; }

static bool uses(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
    if ((p == text || !kr_ident_char(p[-1])) && !kr_ident_char(p[n]) && !(p > text && p[-1] == '.')) return true;
  return false;
}

/* True when the loop's body declares anything (a temporary). */
static bool has_temps(const KrTree *t, const KrRowItem *it) {
  if (!is(t, it->body, t->sym.compound_statement)) return is(t, it->body, t->sym.declaration);
  for (uint32_t i = 0; i < ts_node_named_child_count(it->body); i++)
    if (is(t, ts_node_named_child(it->body, i), t->sym.declaration)) return true;
  return false;
}

static const KrRowAcc *only_acc(const KrRows *r, const KrRowItem *it) {
  return it->kind == KR_ROW_LOOP && it->accs.len == 1 && !it->writes.len ? &r->accs.data[it->accs.data[0]] : NULL;
}

/* The loop after loop item `i` (only statements between), or -1. */
static int next_loop(const KrRows *r, int i) {
  for (size_t j = (size_t)i + 1; j < r->items.len; j++)
    if (r->items.data[j].kind == KR_ROW_LOOP) return (int)j;
  return -1;
}

static bool same_range(const KrRowItem *x, const KrRowItem *y) {
  return !strcmp(x->var, y->var) && !strcmp(x->lo, y->lo) && !strcmp(x->hi, y->hi);
}

static bool sum_identity(const char *init) {
  static const char *const zeros[] = {"0", "0.0f", "0.f", "0.0", "0.", "0.0F", "0u", "0U", "0l", "0L", "0ll", "0.0L"};
  for (size_t i = 0; i < sizeof zeros / sizeof zeros[0]; i++)
    if (!strcmp(init, zeros[i])) return true;
  return false;
}

static bool arithmetic_type(const char *t) {
  static const char *const ok[] = {"float", "double", "int", "unsigned", "unsigned int", "long", "long long",
                                   "unsigned long long", "int64_t", "uint32_t", "uint64_t", "int32_t", "size_t"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (!strcmp(t, ok[i])) return true;
  return false;
}

/* ---- The fusions ---------------------------------------------------------------------------------- */

typedef struct Online {
  int l1, l2;        /* the max loop and the sum loop */
  int m, s;          /* their accumulators */
  const char *v;     /* the value maximised */
  const char *exp;   /* the exponential the sum calls */
} Online;

static const char *online_of(const KrRows *r, const KrTree *t, Online *o, uint32_t *at, KrArena *a) {
  const char *why = "no loop taking a maximum (m = fmaxf(m, v)) is followed by a loop summing exp(v - m)";
  *at = r->at;
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowAcc *m = only_acc(r, &r->items.data[i]);
    if (!m || m->op != KR_RED_MAX || !m->fn) continue;
    int j = next_loop(r, (int)i);
    const KrRowAcc *s = j >= 0 ? only_acc(r, &r->items.data[j]) : NULL;
    *at = ts_node_start_byte(r->items.data[i].node);
    if (!s || s->op != KR_RED_SUM || s->negate || s->fma) continue;
    const KrRowItem *x = &r->items.data[i], *y = &r->items.data[j];
    TSNode call = kr_node_strip_parens(t, s->value);
    const char *fn = is(t, call, t->sym.call_expression) ? kr_node_text(t, kr_node_field(call, "function"), a) : "";
    if (strcmp(fn, "expf") && strcmp(fn, "__expf") && strcmp(fn, "exp")) continue;
    TSNode args = kr_node_field(call, "arguments");
    TSNode e = ts_node_named_child_count(args) == 1 ? kr_node_strip_parens(t, ts_node_named_child(args, 0)) : (TSNode){0};
    if (!is(t, e, t->sym.binary_expression) || !kr_node_operator_is(t, e, "-")) continue;
    const char *vl = kr_node_text_flat(t, kr_node_field(e, "left"), a);
    const char *vr = kr_node_text_flat(t, kr_node_strip_parens(t, kr_node_field(e, "right")), a);
    const char *v1 = kr_node_text_flat(t, m->value, a);
    if (strcmp(vr, m->name) && strcmp(vr, m->result)) continue;
    *at = ts_node_start_byte(y->node);
    if (has_temps(t, x) || has_temps(t, y)) return "a temporary in the max or the sum loop (write the value inline)";
    if (strcmp(vl, v1)) return "the sum's exponent does not subtract the maximum from the value maximised";
    if (!same_range(x, y)) return "the max loop and the sum loop walk different ranges";
    /* The sum's declaration moves before the fused loop: its value must not need what lies between. */
    for (size_t k = i + 1; k < (size_t)j; k++) {
      const KrRowItem *b = &r->items.data[k];
      if (b->acc == (int)(s - r->accs.data)) continue;
      if (is(t, b->node, t->sym.declaration)) {
        TSNode d = kr_node_field(b->node, "declarator");
        const char *name = kr_node_text(t, kr_node_field(d, "declarator"), a);
        if (name && uses(s->init, name)) return "the sum's initial value reads a value computed after the max loop";
      }
    }
    if (uses(s->init, m->name)) return "the sum's initial value reads the maximum";
    *o = (Online){.l1 = (int)i, .l2 = j, .m = (int)(m - r->accs.data), .s = (int)(s - r->accs.data), .v = v1, .exp = fn};
    return NULL;
  }
  return why;
}

typedef struct Welford {
  int l1, l2, sum, sq;
  const char *v, *mean;
} Welford;

static const char *welford_of(const KrRows *r, const KrTree *t, Welford *w, uint32_t *at, KrArena *a) {
  *at = r->at;
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *x = &r->items.data[i];
    const KrRowAcc *s = only_acc(r, x);
    if (!s || s->op != KR_RED_SUM || s->negate || s->fma || has_temps(t, x)) continue;
    int j = next_loop(r, (int)i);
    const KrRowAcc *q = j >= 0 ? only_acc(r, &r->items.data[j]) : NULL;
    if (!q || q->op != KR_RED_SUM || q->negate || q->fma) continue;
    const KrRowItem *y = &r->items.data[j];
    *at = ts_node_start_byte(y->node);
    /* The mean: the first declaration between the loops whose value reads the sum. */
    const char *mean = NULL;
    for (size_t k = i + 1; k < (size_t)j && !mean; k++) {
      const KrRowItem *b = &r->items.data[k];
      if (b->kind != KR_ROW_STMT || !is(t, b->node, t->sym.declaration) || ts_node_named_child_count(b->node) != 2) continue;
      TSNode d = kr_node_field(b->node, "declarator");
      TSNode v = kr_node_field(d, "value");
      if (ts_node_is_null(v)) continue;
      const char *vt = kr_node_text_flat(t, v, a);
      bool via_sub = false;
      for (size_t u = 0; u < r->subs.len; u++)
        via_sub |= ts_node_start_byte(r->subs.data[u].node) >= ts_node_start_byte(v) &&
                   ts_node_end_byte(r->subs.data[u].node) <= ts_node_end_byte(v) && !strcmp(r->subs.data[u].text, s->name);
      if (uses(vt, s->name) || uses(vt, s->result) || via_sub) mean = kr_node_text(t, kr_node_field(d, "declarator"), a);
    }
    if (!mean) continue;
    const char *v1 = kr_node_text_flat(t, s->value, a);
    if (!same_range(x, y)) return "the sum loop and the squared-deviation loop walk different ranges";
    /* The squares: `float d = V - mean; q += d * d;` or `q += (V - mean) * (V - mean);`. */
    char want[512];
    snprintf(want, sizeof want, "%s - %s", v1, mean);
    const char *qv = kr_node_text_flat(t, q->value, a);
    bool ok = false;
    if (!has_temps(t, y)) {
      char sq[1100];
      snprintf(sq, sizeof sq, "(%s) * (%s)", want, want);
      ok = !strcmp(qv, sq);
    } else if (is(t, y->body, t->sym.compound_statement) && ts_node_named_child_count(y->body) == 2) {
      TSNode d0 = ts_node_named_child(y->body, 0);
      TSNode dd = kr_node_field(d0, "declarator");
      const char *dn = is(t, d0, t->sym.declaration) ? kr_node_text(t, kr_node_field(dd, "declarator"), a) : NULL;
      const char *dv = dn ? kr_node_text_flat(t, kr_node_field(dd, "value"), a) : "";
      char sq[300];
      snprintf(sq, sizeof sq, "%s * %s", dn ? dn : "", dn ? dn : "");
      ok = dn && !strcmp(dv, want) && !strcmp(qv, sq);
    }
    if (!ok) return "the second loop does not sum the squared deviation from the mean of the first "
                    "(float d = v - mean; sq += d * d;)";
    *w = (Welford){.l1 = (int)i, .l2 = j, .sum = (int)(s - r->accs.data), .sq = (int)(q - r->accs.data), .v = v1, .mean = mean};
    return NULL;
  }
  return "no loop summing a value is followed by a loop summing its squared deviation from the mean";
}

const char *kr_reduction_online_why(const KrRows *r, const KrTree *t, uint32_t *at, KrArena *a) {
  Online o;
  return online_of(r, t, &o, at, a);
}

const char *kr_reduction_welford_why(const KrRows *r, const KrTree *t, uint32_t *at, KrArena *a) {
  Welford w;
  return welford_of(r, t, &w, at, a);
}

static bool read_later_in(const KrRows *r, const KrTree *t, size_t i, KrArena *a);

/* ---- split_rows ---------------------------------------------------------------------------------- */

const char *kr_reduction_split_why(KrPassCtx *cx) {
  const KrRows *r = cx->rows;
  const KrSchedule *s = cx->schedule;
  if (s->layout != KR_LAYOUT_BLOCK) return "it splits rows walked by a block each (block_reduce's row layout)";
  if (r->elements) return "the rows are the original launch's blocks (one element a thread), whose count the workspace's "
                          "size cannot be computed from";
  if (!r->guard && !r->single) return "the row has no guard (row < rows) to size the grid and the workspace by";
  KrLoops *lx = kr_loops_new(cx->nest_tree, r->kernel, cx->arena);
  bool ok = true;
  if (r->guard) kr_schedule_launch_expr(cx->nest_tree, r->kernel, lx, r->guard_hi, cx->arena, &ok);
  if (!ok) return "the row count is not an expression of the kernel's parameters and constants";
  int last = -1, nred = 0;
  for (size_t i = 0; i < r->items.len; i++)
    if (r->items.data[i].kind == KR_ROW_LOOP && r->items.data[i].accs.len) last = (int)i, nred++;
  if (last < 0) return "the row nest has no reduction";
  if (nred > 4) return "more than four reductions in sequence";
  for (int i = 0; i < last; i++)
    if (r->items.data[i].kind == KR_ROW_LOOP && r->items.data[i].writes.len)
      return "a loop before the last reduction stores (only what follows the last reduction runs once per element)";
  if (r->items.data[last].writes.len) return "the last reduction loop also stores";
  for (size_t i = 0; i < r->items.len; i++)
    if (r->items.data[i].kind == KR_ROW_STMT && r->items.data[i].store &&
        read_later_in(r, cx->nest_tree, i, cx->arena))
      return "a statement of the row reads back what a store of the row wrote (the parts' blocks are not ordered)";
  return NULL;
}

uint32_t kr_reduction_at(const KrPassCtx *cx, uint32_t lifted_at) {
  const KrSource *now = cx->src, *then = cx->nest_tree->src;
  bool same = now->len == then->len && memcmp(now->text, then->text, now->len) == 0;
  return same ? lifted_at : ts_node_start_byte(cx->kernel->node);
}

/* ---- Checks --------------------------------------------------------------------------------------- */

KrStatus kr_reduction_check(KrPassCtx *cx) {
  const KrRows *r = cx->rows;
  if (!r) return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "%s: the kernel is not a row reduction", cx->pass->name);
  if (cx->schedule->bm)
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "%s: the kernel was tiled as a contraction", cx->pass->name);
  for (size_t i = 0; i < r->accs.len; i++) {
    const KrRowAcc *x = &r->accs.data[i];
    if (x->op == KR_RED_SUM && !arithmetic_type(x->type))
      return kr_pass_skip(cx, kr_reduction_at(cx, ts_node_start_byte(x->decl)), "%s: the sum '%s' is of type '%s', which the combine does not "
                          "handle (float, double or an integer)", cx->pass->name, x->name, x->type);
  }
  return KR_OK;
}

KrRowsLayout kr_reduction_layout(const KrRows *r, const KrTree *t) {
  if (r->map != KR_ROWS_THREAD) return KR_LAYOUT_BLOCK;
  KrArena *a = kr_arena_new();
  KrAffineCtx *ac = kr_affine_ctx_new(t, r->kernel, a);
  int coalesced = 0, other = 0;
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *it = &r->items.data[i];
    if (it->kind != KR_ROW_LOOP) continue;
    KrVec(TSNode) stack = {0};
    kr_vec_push(a, &stack, it->body);
    while (stack.len) {
      TSNode n = stack.data[--stack.len];
      if (is(t, n, t->sym.subscript_expression)) {
        const KrAffine *f = kr_affine_of(ac, ts_node_named_child(kr_node_field(n, "indices"), 0));
        long long c = 0, sx = 0;
        bool moves = f->ok && (!kr_affine_coef(f, it->var, &c) || c != 0);
        bool known = moves && kr_affine_stride(ac, f, "threadIdx.x", &sx);
        if (!f->ok) other++;
        else if (known && sx == 1) coalesced++;
        else if (moves && !(known && sx == 0)) other++;   /* the same element for every row: a broadcast */
      }
      for (uint32_t c = 0; c < ts_node_named_child_count(n); c++) kr_vec_push(a, &stack, ts_node_named_child(n, c));
    }
  }
  kr_arena_free(a);
  return coalesced && !other ? KR_LAYOUT_COLUMN : KR_LAYOUT_BLOCK;
}

/* ---- The emitter ---------------------------------------------------------------------------------- */

typedef struct State {
  const char *name, *type;
} State;

typedef enum { G_PLAIN, G_ARG, G_ONLINE, G_WELFORD } GroupKind;

/* What is combined after one loop: the per-thread state and how two states combine. */
typedef struct Group {
  GroupKind kind;
  State st[3];
  int nst;
  const KrRowAcc *acc;       /* G_PLAIN, G_ARG: the (value) accumulator; G_ONLINE: the max */
  const char *cmp, *tie;     /* G_ARG */
  const char *exp, *max;     /* G_ONLINE */
} Group;

/* row_cache's modes of a step: the cached access loaded and kept in registers or shared memory, or
 * taken from there instead of from memory. */
enum { C_NONE, C_KEEP_REG, C_KEEP_SMEM, C_USE_REG, C_USE_SMEM };

typedef struct Em {
  KrPassCtx *cx;
  const KrRows *r;
  const KrTree *t;
  const KrSchedule *s;
  KrArena *a;
  KrBuf *o;
  KrLoops *lx;
  const char *unit, *nl;
  KrVec(const char *) taken;
  KrRowsLayout lay;
  int T, per, warps;         /* threads per block, threads per row, warps per block */
  const char *lane, *live, *leader, *off, *w, *mask;
  bool online, welford;
  bool split;                /* split_rows */
  bool cluster;              /* split_rows over a cluster: the parts meet in distributed shared memory */
  bool left;                 /* the cluster's last exchange arrived at the split barrier (barrier_arrive) */
  bool push;                 /* the cluster's blocks push their states into each other (kr_cluster_push), below */
  bool async;                /* row_cache's keeper copies to shared memory by cp.async (cuda_pipeline.h) */
  const char *arrivals;      /* push: the block's mbarriers, one a reduction */
  bool resident;             /* split_rows with resident: every block runs each stage, meeting in the workspace */
  const char *np;            /* split_rows: the parts of a row as the kernel has them (PARTS, or kr_parts from the grid) */
  bool unroll;               /* the next sweep's loop gets `#pragma unroll 4` */
  const char *pre;           /* a batched step: its words from memory already loaded, in pre[0], pre[1], … */
  const char **seen_of;      /* per accumulator: an arg-max value's "took an element" flag */
  const char *shift;         /* welford: the row's first value, subtracted from every value */
  const KrRowSub *vsubs;     /* a vectorised step's body: its accesses read as the step's buffers */
  size_t nvsubs;
  /* row_cache: the access kept on chip (array and index as text; NULL: none), the loop whose sweep
   * loads it (the keeper), and the names of what holds it; during a step, what the cached access
   * does (cmode) with the register step (cm) or the shared-memory offset (coff). */
  const char *c_array, *c_index, *c_elem, *c_regs, *c_smem, *c_fits, *c_vbeg, *c_vend;
  int c_keeper, c_size, c_V, c_steps, c_cap;
  int cmode;
  const char *cm, *coff;
  /* row_cache's derived value: the first later sweep (d_a) computes d_text, a call of a float
   * function of the kept element and of values no sweep between changes, which the second (d_b)
   * computes again; d_a leaves the call's value in the cache for d_b, and d_flag says it did. */
  const char *d_text, *d_flag, *d_keep;
  int d_a, d_b, cur;
  const char *ws, *part, *stage, *arrive, *done, *from, *to, *cl;
  int nred, nslots;          /* split_rows: reductions (stages before the last), state slots per part */
  Online on;
  Welford wf;
} Em;

static bool taken(Em *E, const char *name) {
  if (kr_loops_name_used(E->lx, name)) return true;
  for (size_t i = 0; i < E->taken.len; i++)
    if (!strcmp(E->taken.data[i], name)) return true;
  return false;
}

static const char *fresh(Em *E, const char *base) {
  const char *name = base;
  for (int i = 1; taken(E, name); i++) name = kr_arena_printf(E->a, "%s_%d", base, i);
  kr_vec_push(E->a, &E->taken, name);
  return name;
}

static void line(Em *E, int depth, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(Em *E, int depth, const char *fmt, ...) {
  for (int i = 0; i < depth; i++) kr_buf_puts(E->o, E->unit);
  va_list ap;
  va_start(ap, fmt);
  kr_buf_vprintf(E->o, fmt, ap);
  va_end(ap);
  kr_buf_puts(E->o, E->nl);
}

/* The text of `node` with the row nest's substitutions (buf[0] -> the reduced accumulator). */
static const char *spliced(Em *E, TSNode node) {
  uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
  KrBuf b = {0};
  const char *src = E->t->src->text;
  uint32_t at = s;
  for (;;) {
    const KrRowSub *next = NULL;
    for (size_t i = 0; i < E->r->subs.len + E->nvsubs; i++) {
      const KrRowSub *x = i < E->r->subs.len ? &E->r->subs.data[i] : &E->vsubs[i - E->r->subs.len];
      uint32_t xs = ts_node_start_byte(x->node);
      if (xs >= at && ts_node_end_byte(x->node) <= e && (!next || xs < ts_node_start_byte(next->node))) next = x;
    }
    if (!next) break;
    kr_buf_append(&b, src + at, ts_node_start_byte(next->node) - at);
    kr_buf_puts(&b, next->text);
    at = ts_node_end_byte(next->node);
  }
  kr_buf_append(&b, src + at, e - at);
  const char *r = kr_arena_strndup(E->a, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return r;
}

/* Emits `node` (a statement) at `depth`, its own lines re-indented. */
static void stmt(Em *E, int depth, TSNode node) {
  const char *text = spliced(E, node);
  const char *src = E->t->src->text;
  uint32_t b = ts_node_start_byte(node);
  while (b > 0 && src[b - 1] != '\n') b--;
  size_t base = ts_node_start_byte(node) - b;
  for (const char *p = text; *p;) {
    const char *q = strchr(p, '\n');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    if (n && p[n - 1] == '\r') n--;
    size_t skip = 0;
    if (p != text)
      while (skip < base && skip < n && (p[skip] == ' ' || p[skip] == '\t')) skip++;
    line(E, depth, "%.*s", (int)(n - skip), p + skip);
    if (!q) break;
    p = q + 1;
  }
}

static const char *one_of(const char *type) { return !strcmp(type, "float") ? "1.0f" : "1"; }

static const char *combine_plain(Em *E, const KrRowAcc *x, const char *self, const char *other) {
  if (x->op == KR_RED_SUM) return kr_arena_printf(E->a, "%s = %s + %s;", self, self, other);
  return kr_arena_printf(E->a, "%s = %s(%s, %s);", self, x->fn, self, other);
}

/* self ⊕= other, for the group's state: `o` holds the other state's names. */
static void combine(Em *E, int depth, const Group *g, const char *const *o) {
  const State *s = g->st;
  switch (g->kind) {
  case G_PLAIN: line(E, depth, "%s", combine_plain(E, g->acc, s[0].name, o[0])); break;
  case G_ARG:   /* a thread that saw no element to take keeps the start value and never wins a tie */
    line(E, depth, "if (%s && (!%s || %s %s %s || (%s == %s && %s %s %s))) {", o[2], s[2].name, o[0], g->cmp, s[0].name,
         o[0], s[0].name, o[1], g->tie, s[1].name);
    line(E, depth + 1, "%s = %s;", s[0].name, o[0]);
    line(E, depth + 1, "%s = %s;", s[1].name, o[1]);
    line(E, depth + 1, "%s = 1;", s[2].name);
    line(E, depth, "}");
    break;
  case G_ONLINE: {
    const char *mx = fresh(E, "kr_max");
    line(E, depth, "%s %s = %s(%s, %s);", s[0].type, mx, g->max, s[0].name, o[0]);
    line(E, depth, "%s = (%s == -INFINITY ? 0 : %s * %s(%s - %s)) + (%s == -INFINITY ? 0 : %s * %s(%s - %s));", s[1].name,
         s[0].name, s[1].name, g->exp, s[0].name, mx, o[0], o[1], g->exp, o[0], mx);
    line(E, depth, "%s = %s;", s[0].name, mx);
    break;
  }
  case G_WELFORD: {
    const char *tn = fresh(E, "kr_count"), *d = fresh(E, "kr_delta");
    line(E, depth, "int %s = %s + %s;", tn, s[0].name, o[0]);
    line(E, depth, "if (%s > 0) {", tn);
    line(E, depth + 1, "%s %s = %s - %s;", s[1].type, d, o[1], s[1].name);
    line(E, depth + 1, "%s = %s + %s * ((%s)%s / (%s)%s);", s[1].name, s[1].name, d, s[1].type, o[0], s[1].type, tn);
    line(E, depth + 1, "%s = %s + %s + %s * %s * ((%s)%s * (%s)%s / (%s)%s);", s[2].name, s[2].name, o[2], d, d, s[1].type,
         s[0].name, s[1].type, o[0], s[1].type, tn);
    line(E, depth, "}");
    line(E, depth, "%s = %s;", s[0].name, tn);
    break;
  }
  }
}

/* The group's shared arrays, declared at the top of the body. */
static void group_shared(Em *E, Group *g, const char **parts) {
  for (int i = 0; i < g->nst; i++) {
    parts[i] = fresh(E, kr_arena_printf(E->a, "%s_part", g->st[i].name));
    if (E->lay == KR_LAYOUT_COLUMN) line(E, 1, "__shared__ %s %s[%d][32];", g->st[i].type, parts[i], E->per);
    else if (E->lay == KR_LAYOUT_BLOCK && E->warps > 1) line(E, 1, "__shared__ %s %s[%d];", g->st[i].type, parts[i], E->warps);
  }
}

/* Combines the group's per-thread state over the row's threads; afterwards every thread of the
 * row holds the same combined state. */
static void reduce(Em *E, int depth, Group *g, const char *const *parts) {
  const char *o[3];
  if (E->lay != KR_LAYOUT_COLUMN) {
    line(E, depth, "// the row's threads combined: a shuffle tree in each warp%s",
         E->lay == KR_LAYOUT_BLOCK && E->warps > 1 ? ", then the warps' values in a fixed order" : "");
    line(E, depth, "for (int %s = 16; %s > 0; %s /= 2) {", E->off, E->off, E->off);
    for (int i = 0; i < g->nst; i++) {
      o[i] = fresh(E, kr_arena_printf(E->a, "%s_other", g->st[i].name));
      line(E, depth + 1, "%s %s = __shfl_down_sync(0xffffffffu, %s, %s);", g->st[i].type, o[i], g->st[i].name, E->off);
    }
    combine(E, depth + 1, g, o);
    line(E, depth, "}");
    if (E->lay == KR_LAYOUT_WARP || E->warps == 1) {
      for (int i = 0; i < g->nst; i++) line(E, depth, "%s = __shfl_sync(0xffffffffu, %s, 0);", g->st[i].name, g->st[i].name);
      return;
    }
    line(E, depth, "if (%s %% 32 == 0) {", E->lane);
    for (int i = 0; i < g->nst; i++) line(E, depth + 1, "%s[%s / 32] = %s;", parts[i], E->lane, g->st[i].name);
    line(E, depth, "}");
    line(E, depth, "__syncthreads();");
    for (int i = 0; i < g->nst; i++) line(E, depth, "%s = %s[0];", g->st[i].name, parts[i]);
    line(E, depth, "for (int %s = 1; %s < %d; %s++) {", E->w, E->w, E->warps, E->w);
    for (int i = 0; i < g->nst; i++) {
      o[i] = fresh(E, kr_arena_printf(E->a, "%s_other", g->st[i].name));
      line(E, depth + 1, "%s %s = %s[%s];", g->st[i].type, o[i], parts[i], E->w);
    }
    combine(E, depth + 1, g, o);
    line(E, depth, "}");
    return;
  }
  line(E, depth, "// the row's threads (threadIdx.y) combined in a fixed order");
  for (int i = 0; i < g->nst; i++) line(E, depth, "%s[threadIdx.y][threadIdx.x] = %s;", parts[i], g->st[i].name);
  line(E, depth, "__syncthreads();");
  for (int i = 0; i < g->nst; i++) line(E, depth, "%s = %s[0][threadIdx.x];", g->st[i].name, parts[i]);
  line(E, depth, "for (int %s = 1; %s < %d; %s++) {", E->w, E->w, E->per, E->w);
  for (int i = 0; i < g->nst; i++) {
    o[i] = fresh(E, kr_arena_printf(E->a, "%s_other", g->st[i].name));
    line(E, depth + 1, "%s %s = %s[%s][threadIdx.x];", g->st[i].type, o[i], parts[i], E->w);
  }
  combine(E, depth + 1, g, o);
  line(E, depth, "}");
}

static void loop_head(Em *E, int depth, const KrRowItem *it) {
  const char *lo = strcmp(it->lo, "0") ? kr_arena_printf(E->a, "(%s) + %s", it->lo, E->lane) : E->lane;
  line(E, depth, "for (%s %s = %s; %s < %s; %s += %d) {", it->var_type, it->var, lo, it->var, it->hi, it->var, E->per);
}

/* The loop's body statements, without their braces. */
static void loop_body(Em *E, int depth, const KrRowItem *it) {
  const KrTree *t = E->t;
  if (it->text) {   /* the row nest wrote it (the element form) */
    line(E, depth, "%s", it->text);
    return;
  }
  if (!is(t, it->body, t->sym.compound_statement)) {
    stmt(E, depth, it->body);
    return;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(it->body); i++) {
    TSNode c = ts_node_named_child(it->body, i);
    const KrRowAcc *arg = NULL;
    for (size_t k = 0; k < it->accs.len; k++) {
      const KrRowAcc *x = &E->r->accs.data[it->accs.data[k]];
      if (x->arg >= 0 && ts_node_eq(x->update, c)) arg = x;
    }
    if (!arg) {
      stmt(E, depth, c);
      continue;
    }
    /* The arg-max update, which also records that this thread took an element. */
    const KrRowAcc *ix = &E->r->accs.data[arg->arg];
    const char *v = spliced(E, arg->value);
    line(E, depth, "if (%s %s %s) {", v, arg->cmp, arg->name);
    line(E, depth + 1, "%s = %s;", arg->name, v);
    line(E, depth + 1, "%s = %s;", ix->name, spliced(E, ix->value));
    line(E, depth + 1, "%s = 1;", E->seen_of[arg - E->r->accs.data]);
    line(E, depth, "}");
  }
}

/* The arrays a statement stores into (the targets of its assignments), pushed onto `out`. */
typedef KrVec(const char *) Names;

static void stores_of(const KrTree *t, TSNode n, KrArena *a, Names *out) {
  if (is(t, n, t->sym.assignment_expression) || is(t, n, t->sym.update_expression)) {
    TSNode x = kr_node_strip_parens(t, kr_node_field(n, is(t, n, t->sym.update_expression) ? "argument" : "left"));
    if (is(t, x, t->sym.subscript_expression)) kr_vec_push(a, out, kr_node_text(t, kr_node_field(x, "argument"), a));
  }
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) stores_of(t, ts_node_child(n, i), a, out);
}

/* True when an item after `i` reads an array item `i` stores. */
static bool read_later_in(const KrRows *r, const KrTree *t, size_t i, KrArena *a) {
  const KrRowItem *it = &r->items.data[i];
  Names w = {0};
  if (it->kind == KR_ROW_LOOP)
    for (size_t k = 0; k < it->writes.len; k++) kr_vec_push(a, &w, it->writes.data[k]);
  else stores_of(t, it->node, a, &w);
  for (size_t j = i + 1; j < r->items.len; j++) {
    const char *text = kr_node_text(t, r->items.data[j].node, a);
    for (size_t k = 0; k < w.len; k++)
      if (uses(text, w.data[k])) return true;
  }
  return false;
}

static bool read_later(Em *E, size_t i) { return read_later_in(E->r, E->t, i, E->a); }

static void barrier(Em *E, int depth) {
  line(E, depth, E->lay == KR_LAYOUT_WARP ? "__syncwarp();" : "__syncthreads();");
}

/* Groups of the loop's accumulators. */
static int groups_of(Em *E, const KrRowItem *it, Group *g) {
  int n = 0;
  for (size_t k = 0; k < it->accs.len; k++) {
    const KrRowAcc *x = &E->r->accs.data[it->accs.data[k]];
    if (x->of >= 0) continue;
    Group *y = &g[n++];
    *y = (Group){.kind = x->arg >= 0 ? G_ARG : G_PLAIN, .acc = x};
    y->st[y->nst++] = (State){x->name, x->type};
    if (x->arg >= 0) {
      const KrRowAcc *ix = &E->r->accs.data[x->arg];
      y->st[y->nst++] = (State){ix->name, ix->type};
      y->cmp = strchr(x->cmp, '>') ? ">" : "<";
      y->tie = strchr(x->cmp, '=') ? ">" : "<";
      y->st[y->nst++] = (State){fresh(E, kr_arena_printf(E->a, "%s_seen", x->name)), "int"};
    }
  }
  return n;
}

/* One reduction loop's emission in three steps: what precedes the sweep (declarations, sums
 * started from zero), the sweep and its combine over the block, what follows the combine (the
 * original's initial values added back, welford's sum). */
typedef struct Red {
  Group g[8];
  int ng;
  const char *parts[8][3];
  const char *init0[8];
  int q;                     /* its index among the reduction loops (split_rows: its stage) */
  const char *pushed[8 * 3]; /* split_rows' pushed exchange: each state's slots, one a part */
} Red;

static void red_pre(Em *E, size_t i, Red *rd, bool *hoisted_s) {
  const KrRows *r = E->r;
  if (E->online && (int)i == E->on.l1) {
    const KrRowAcc *s = &r->accs.data[E->on.s];
    for (size_t k = i + 1; k < (size_t)E->on.l2; k++)
      if (r->items.data[k].acc == E->on.s) stmt(E, 1, r->items.data[k].node), *hoisted_s = true;
    if (!sum_identity(s->init)) {
      rd->init0[0] = fresh(E, kr_arena_printf(E->a, "%s_init", s->name));
      line(E, 1, "%s %s = %s;", s->type, rd->init0[0], s->name);
      line(E, 1, "%s = 0;", s->name);
    }
    return;
  }
  if (E->welford && (int)i == E->wf.l1) {
    const KrRowAcc *s = &r->accs.data[E->wf.sum];
    const KrRowItem *it = &r->items.data[i];
    line(E, 1, "int %s = 0;", rd->g[0].st[0].name);
    line(E, 1, "%s %s = 0, %s = 0;", s->type, rd->g[0].st[1].name, rd->g[0].st[2].name);
    /* The row's first value, subtracted from every value: the sweep's mean and M2 are then of
     * numbers about the size of the spread, not of the mean, so fp32 keeps the variance's digits
     * when the mean is far larger than the spread (the same shift in every block of a row). */
    E->shift = fresh(E, "kr_shift");
    line(E, 1, "%s %s = 0;", s->type, E->shift);
    line(E, 1, "if ((%s) < (%s)) {", it->lo, it->hi);
    line(E, 2, "%s %s = %s;", it->var_type, it->var, it->lo);
    line(E, 2, "%s = %s;", E->shift, E->wf.v);
    line(E, 1, "}");
    return;
  }
  for (int k = 0; k < rd->ng; k++)
    if (rd->g[k].kind == G_ARG) line(E, 1, "int %s = 0;", rd->g[k].st[2].name);
  for (int k = 0; k < rd->ng; k++)
    if (rd->g[k].kind == G_PLAIN && rd->g[k].acc->op == KR_RED_SUM && !sum_identity(rd->g[k].acc->init)) {
      rd->init0[k] = fresh(E, kr_arena_printf(E->a, "%s_init", rd->g[k].acc->name));
      line(E, 1, "%s %s = %s;", rd->g[k].acc->type, rd->init0[k], rd->g[k].acc->name);
      line(E, 1, "%s = 0;", rd->g[k].acc->name);
    }
}

/* split_rows: the part of [lo, hi) this block walks, as kr_from / kr_to declared at `depth`. */
static void slice(Em *E, int depth, const KrRowItem *it) {
  const char *len = fresh(E, "kr_len"), *chunk = fresh(E, "kr_chunk");
  E->from = fresh(E, "kr_from"), E->to = fresh(E, "kr_to");
  line(E, depth, "const long long %s = (long long)(%s) - (long long)(%s);", len, it->hi, it->lo);
  if (E->resident)
    line(E, depth, "const long long %s = ((%s + %s - 1) / %s + 31) / 32 * 32;   // whole warps' worth", chunk, len, E->np, E->np);
  else
    line(E, depth, "const long long %s = ((%s + %d) / %d + 31) / 32 * 32;   // whole warps' worth", chunk, len,
         E->s->row_parts - 1, E->s->row_parts);
  line(E, depth, "const long long %s = (long long)(%s) + %s * %s;", E->from, it->lo, E->part, chunk);
  line(E, depth, "const long long %s = %s + %s < (long long)(%s) ? %s + %s : (long long)(%s);", E->to, E->from, chunk,
       it->hi, E->from, chunk, it->hi);
}

static void sweep_head(Em *E, int depth, const KrRowItem *it) {
  if (!E->split) {
    if (E->unroll) line(E, depth, "#pragma unroll 4");
    loop_head(E, depth, it);
    return;
  }
  slice(E, depth, it);
  if (E->unroll) line(E, depth, "#pragma unroll 4");
  line(E, depth, "for (%s %s = (%s)(%s + %s); %s < %s; %s += %d) {", it->var_type, it->var, it->var_type, E->from, E->lane,
       it->var, E->to, it->var, E->per);
}


/* ---- Vectorised sweeps -----------------------------------------------------------------------------
 * A row loop's contiguous accesses (`x[base + j]`, base the same for the whole row) move 16 bytes at
 * a time: each thread walks V consecutive elements per step (V: 16 bytes of the narrowest such
 * element) instead of one, loads each access's V elements into a buffer of its own by whole 16-byte
 * words, runs the body V times over the buffers, and stores a store's buffer the same way. The
 * steps start at the row's first element at which every such access is 16-byte aligned, found at
 * run time per row (the elements before it, and those past the last whole step, are walked one at
 * a time as before); a row whose accesses disagree there, or with fewer elements than one step per
 * thread, is walked one element at a time. Loads are taken only where the body reads unconditionally (a load the
 * original makes under a condition might be out of bounds); stores only as `A[base + j] = v;`, a
 * statement of the body itself and the array's only store in the loop. */

typedef struct VAcc {
  const char *array, *index;  /* the access's array and index as text: what identifies it */
  TSNode node;                /* an occurrence, for the address */
  const char *elem;           /* the element type ("float", "__nv_bfloat16") */
  int size;                   /* bytes per element */
  bool store, plain;          /* a store; a load seen outside any condition */
  bool cached;                /* row_cache's access */
  const char *buf;            /* the thread's V elements */
} VAcc;

#define KR_VEC_ACCS 8

typedef struct Vec {
  int V;                      /* elements per step; 0: the loop is walked one element at a time */
  VAcc acc[KR_VEC_ACCS];
  int n;
  KrVec(KrRowSub) subs;       /* every occurrence, read as BUF[k] in a step's body */
  const char *k;              /* a step's element */
} Vec;

static int elem_bytes(const char *t) {
  static const struct {
    const char *name;
    int size;
  } k[] = {{"float", 4},         {"double", 8},       {"int", 4},      {"unsigned", 4},       {"unsigned int", 4},
           {"int32_t", 4},       {"uint32_t", 4},     {"long long", 8}, {"unsigned long long", 8}, {"int64_t", 8},
           {"uint64_t", 8},      {"__half", 2},       {"half", 2},     {"__nv_bfloat16", 2},  {"nv_bfloat16", 2}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (!strcmp(t, k[i].name)) return k[i].size;
  return 0;
}

/* The element type of the pointer `id` names (a parameter or local declared `T *p`), or NULL. */
static const char *pointee(Em *E, TSNode id, int *size) {
  const KrTree *t = E->t;
  if (!is(t, id, t->sym.identifier)) return NULL;
  KrBinding b = kr_resolve(t, E->r->kernel, id);
  if (b.kind != KR_BIND_PARAM && b.kind != KR_BIND_LOCAL) return NULL;
  int depth = 0;
  for (TSNode n = ts_node_parent(b.name); !ts_node_is_null(n) && !ts_node_eq(n, b.decl); n = ts_node_parent(n)) {
    if (is(t, n, t->sym.pointer_declarator)) depth++;
    else if (!is(t, n, t->sym.init_declarator) && !is(t, n, t->sym.parenthesized_declarator)) return NULL;
  }
  if (depth != 1) return NULL;
  const char *ty = kr_node_text_flat(t, kr_node_field(b.decl, "type"), E->a);
  *size = ty ? elem_bytes(ty) : 0;
  return *size ? ty : NULL;
}

/* The names the loop's body declares. */
static void body_names(const KrTree *t, TSNode n, KrArena *a, Names *out) {
  if (is(t, n, t->sym.declaration))
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
      const char *f = ts_node_field_name_for_child(n, i);
      TSNode id = f && !strcmp(f, "declarator") ? kr_declarator_name(t, ts_node_child(n, i)) : (TSNode){0};
      if (!ts_node_is_null(id)) kr_vec_push(a, out, kr_node_text(t, id, a));
    }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) body_names(t, ts_node_named_child(n, i), a, out);
}

/* True when `index` is base + j, base the same for the whole row (neither j nor a local of the
 * body in it). */
static bool contiguous(Em *E, const KrRowItem *it, TSNode index, const Names *temps, KrAffineCtx *ac) {
  const KrTree *t = E->t;
  const char *text = kr_node_text_flat(t, index, E->a);
  for (size_t i = 0; i < temps->len; i++)
    if (uses(text, temps->data[i])) return false;
  TSNode x = kr_node_strip_parens(t, index);
  if (is(t, x, t->sym.identifier)) return !strcmp(kr_node_text(t, x, E->a), it->var);
  if (is(t, x, t->sym.binary_expression) && kr_node_operator_is(t, x, "+")) {
    TSNode l = kr_node_strip_parens(t, kr_node_field(x, "left")), r = kr_node_strip_parens(t, kr_node_field(x, "right"));
    for (int side = 0; side < 2; side++) {
      TSNode v = side ? r : l, base = side ? l : r;
      if (is(t, v, t->sym.identifier) && !strcmp(kr_node_text(t, v, E->a), it->var) &&
          !uses(kr_node_text_flat(t, base, E->a), it->var))
        return true;
    }
  }
  const KrAffine *f = kr_affine_of(ac, index);
  long long c = 0;
  if (!f->ok || !kr_affine_coef(f, it->var, &c) || c != 1) return false;
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var && f->terms.data[i].kind == KR_AVAR_LOOP && strcmp(f->terms.data[i].var, it->var)) return false;
  return true;
}

/* True when the body reaches `n` only under a condition: in a branch of an if or ?:, the right of
 * && or ||, a nested loop (the conditions themselves, and the left of && and ||, always run). */
static bool conditional(const KrTree *t, TSNode n, TSNode body) {
  for (TSNode c = n, p = ts_node_parent(n); !ts_node_is_null(p) && !ts_node_eq(c, body); c = p, p = ts_node_parent(p)) {
    bool branch = is(t, p, t->sym.if_statement) || is(t, p, t->sym.conditional_expression);
    bool logic = is(t, p, t->sym.binary_expression) && (kr_node_operator_is(t, p, "&&") || kr_node_operator_is(t, p, "||"));
    if ((branch && ts_node_eq(c, kr_node_field(p, "condition"))) || (logic && ts_node_eq(c, kr_node_field(p, "left"))))
      continue;
    if (branch || logic || is(t, p, t->sym.for_statement) || is(t, p, t->sym.while_statement) ||
        is(t, p, t->sym.do_statement) || is(t, p, t->sym.switch_statement))
      return true;
  }
  return false;
}

/* A store the step can take: `A[e] = v;`, a statement of the body itself. */
static bool plain_store(const KrTree *t, TSNode sub, TSNode body) {
  TSNode as = ts_node_parent(sub);
  if (!is(t, as, t->sym.assignment_expression) || !ts_node_eq(kr_node_field(as, "left"), sub) ||
      !kr_node_operator_is(t, as, "="))
    return false;
  TSNode st = ts_node_parent(as);
  return is(t, st, t->sym.expression_statement) && (ts_node_eq(st, body) || ts_node_eq(ts_node_parent(st), body));
}

typedef KrVec(TSNode) Subs;

static void subscripts(const KrTree *t, TSNode n, KrArena *a, Subs *out) {
  if (is(t, n, t->sym.subscript_expression)) kr_vec_push(a, out, n);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) subscripts(t, ts_node_named_child(n, i), a, out);
}

/* The calls in `n` whose flat text is `text` (all of them when text is NULL). */
static void calls_in(const KrTree *t, TSNode n, const char *text, KrArena *a, Subs *out) {
  if (is(t, n, t->sym.call_expression) && (!text || !strcmp(kr_node_text_flat(t, n, a), text))) kr_vec_push(a, out, n);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) calls_in(t, ts_node_named_child(n, i), text, a, out);
}

static VAcc *vacc_find(Vec *v, const char *array, const char *index) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->acc[i].array, array) && (!index || !strcmp(v->acc[i].index, index))) return &v->acc[i];
  return NULL;
}

/* Which of loop `it`'s accesses a step takes, and V: false leaves it one element at a time. */
static bool vec_scan(Em *E, const KrRowItem *it, Vec *v) {
  const KrTree *t = E->t;
  *v = (Vec){0};
  if (!E->s->row_vector || E->lay == KR_LAYOUT_COLUMN || ts_node_is_null(it->body)) return false;   /* a loop the lift wrote */
  Names temps = {0};
  body_names(t, it->body, E->a, &temps);
  Subs subs = {0};
  subscripts(t, it->body, E->a, &subs);
  KrAffineCtx *ac = kr_affine_ctx_new(t, E->r->kernel, E->a);
  Names refused = {0};   /* arrays with an access the step cannot take */
  for (size_t i = 0; i < subs.len; i++) {
    TSNode n = subs.data[i], arr = kr_node_field(n, "argument");
    TSNode idx = ts_node_named_child(kr_node_field(n, "indices"), 0);
    const char *array = kr_node_text_flat(t, arr, E->a);
    TSNode up = ts_node_parent(n);
    bool written = false;
    for (size_t w = 0; w < it->writes.len; w++) written |= !strcmp(it->writes.data[w], array);
    if (is(t, up, t->sym.pointer_expression) && !written) continue;   /* &x[j]: an address, not a load */
    int size = 0;
    const char *elem = ts_node_is_null(idx) ? NULL : pointee(E, arr, &size);
    bool ok = elem && contiguous(E, it, idx, &temps, ac) && (!written || plain_store(t, n, it->body));
    if (!ok) {
      kr_vec_push(E->a, &refused, array);
      continue;
    }
    const char *index = kr_node_text_flat(t, idx, E->a);
    VAcc *x = vacc_find(v, array, index);
    if (written && (x || vacc_find(v, array, NULL))) {   /* a second store into the array */
      kr_vec_push(E->a, &refused, array);
      continue;
    }
    if (!x) {
      if (v->n == KR_VEC_ACCS) continue;
      x = &v->acc[v->n++];
      *x = (VAcc){.array = array, .index = index, .node = n, .elem = elem, .size = size, .store = written};
    }
    x->plain |= !written && !conditional(t, n, it->body);
  }
  /* What the step takes: stores of arrays with no other access, loads read unconditionally. */
  int m = 0, narrow = 16;
  for (int i = 0; i < v->n; i++) {
    VAcc *x = &v->acc[i];
    bool bad = false;
    for (size_t k = 0; k < refused.len; k++) bad |= x->store && !strcmp(refused.data[k], x->array);
    if (bad || (!x->store && !x->plain)) continue;
    v->acc[m++] = *x;
    if (x->size < narrow) narrow = x->size;
  }
  v->n = m;
  if (!m) return false;
  v->V = 16 / narrow;
  for (int i = 0; i < v->n; i++)
    v->acc[i].cached = E->c_array && !v->acc[i].store && !strcmp(v->acc[i].array, E->c_array) &&
                       !strcmp(v->acc[i].index, E->c_index);
  return true;
}

/* vec_scan, then the names of the step's buffers and of its element, and the body's occurrences of
 * its accesses read as the buffers' elements. */
static bool vec_of(Em *E, const KrRowItem *it, Vec *v) {
  if (!vec_scan(E, it, v)) return false;
  const KrTree *t = E->t;
  Subs subs = {0};
  subscripts(t, it->body, E->a, &subs);
  v->k = fresh(E, "kr_k");
  for (int i = 0; i < v->n; i++) {
    VAcc *x = &v->acc[i];
    x->buf = fresh(E, kr_arena_printf(E->a, "kr_%s", kr_ident_char(x->array[0]) ? x->array : "v"));
    for (size_t s = 0; s < subs.len; s++) {
      TSNode n = subs.data[s];
      if (!strcmp(kr_node_text_flat(t, kr_node_field(n, "argument"), E->a), x->array) &&
          !strcmp(kr_node_text_flat(t, ts_node_named_child(kr_node_field(n, "indices"), 0), E->a), x->index) &&
          !is(t, ts_node_parent(n), t->sym.pointer_expression))
        kr_vec_push(E->a, &v->subs, ((KrRowSub){n, kr_arena_printf(E->a, "%s[%s]", x->buf, v->k)}));
    }
  }
  return true;
}

/* The address of access x's element at the j in scope, as a pointer to 16-byte words. */
static const char *words(Em *E, const VAcc *x) {
  return kr_arena_printf(E->a, "reinterpret_cast<%suint4 *>(&(%s))", x->store ? "" : "const ", spliced(E, x->node));
}

/* block_reduce's stream: an access of the row's own elements (its index names the row) moves with
 * the evict-first hint; what every row reads keeps the default, so L2 keeps it. */
static bool streamed(const Em *E, const VAcc *x) { return E->s->row_stream && uses(x->index, E->r->row); }

typedef void (*ElemFn)(Em *E, int depth, const KrRowItem *it, void *arg);

/* `dst = ` word k of access x at the j in scope, loaded from memory (with the evict-first hint where
 * the rows are streamed). */
static void load_word(Em *E, int depth, const VAcc *x, int k, const char *dst) {
  if (streamed(E, x)) line(E, depth, "%s = __ldcs(&%s[%d]);   // streamed: evict first", dst, words(E, x), k);
  else line(E, depth, "%s = %s[%d];", dst, words(E, x), k);
}

/* Whether a step loads access x from memory (not from row_cache's registers or shared memory). */
static bool from_memory(const Em *E, const VAcc *x) {
  return !x->store && !(x->cached && (E->cmode == C_USE_REG || E->cmode == C_USE_SMEM));
}

/* The 16-byte words a step loads from memory. */
static int memory_words(const Em *E, const Vec *v) {
  int n = 0;
  for (int i = 0; i < v->n; i++)
    if (from_memory(E, &v->acc[i])) n += v->V * v->acc[i].size / 16;
  return n;
}

/* The words the step at j0 loads from memory, into dst[0], dst[1], … in the order vec_step takes
 * them (E->pre). */
static void step_loads(Em *E, int depth, const KrRowItem *it, const Vec *v, const char *j0, const char *dst) {
  int n = 0;
  line(E, depth, "const %s %s = %s;", it->var_type, it->var, j0);
  for (int i = 0; i < v->n; i++) {
    const VAcc *x = &v->acc[i];
    if (!from_memory(E, x)) continue;
    for (int k = 0; k < v->V * x->size / 16; k++, n++) {
      load_word(E, depth, x, k, kr_arena_printf(E->a, "%s[%d]", dst, n));
    }
  }
}

/* One step: the thread's V elements from `j0` on: the loads, the body V times, the stores. */
static void vec_step(Em *E, int depth, const KrRowItem *it, const Vec *v, const char *j0, ElemFn fn, void *arg) {
  const char *w = fresh(E, "kr_word");
  for (int i = 0; i < v->n; i++) line(E, depth, "%s %s[%d];", v->acc[i].elem, v->acc[i].buf, v->V);
  /* The 16-byte word a load or store goes through: not needed when every load comes from row_cache's
   * registers and nothing is stored or kept in shared memory. */
  bool word = E->cmode == C_KEEP_SMEM || E->cmode == C_USE_SMEM;
  for (int i = 0; i < v->n; i++) word |= v->acc[i].store || !(v->acc[i].cached && E->cmode == C_USE_REG);
  if (word) line(E, depth, "uint4 %s;", w);
  line(E, depth, "{");
  bool addressed = false;   /* a load from memory here (not all from row_cache's registers or shared memory) */
  for (int i = 0; i < v->n; i++) addressed |= from_memory(E, &v->acc[i]);
  if (addressed && !E->pre) line(E, depth + 1, "const %s %s = %s;", it->var_type, it->var, j0);
  int pw = 0;   /* the next of the batch's words */
  for (int i = 0; i < v->n; i++) {
    const VAcc *x = &v->acc[i];
    if (x->store) continue;
    int nw = v->V * x->size / 16;
    if (x->cached && E->cmode == C_USE_REG) {
      line(E, depth + 1, "memcpy(&%s[0], &%s[%s][0], %d);   // row_cache: from registers", x->buf, E->c_regs, E->cm, 16 * nw);
      continue;
    }
    bool smem = x->cached && E->cmode == C_USE_SMEM;
    for (int k = 0; k < nw; k++) {
      if (smem) line(E, depth + 1, "%s = reinterpret_cast<const uint4 *>(&%s[%s])[%d];   // row_cache: from shared memory",
                     w, E->c_smem, E->coff, k);
      else if (E->pre) line(E, depth + 1, "%s = %s[%d];", w, E->pre, pw++);
      else load_word(E, depth + 1, x, k, w);
      line(E, depth + 1, "memcpy(&%s[%d], &%s, 16);", x->buf, k * 16 / x->size, w);
    }
    if (x->cached && E->cmode == C_KEEP_REG)
      line(E, depth + 1, "memcpy(&%s[%s][0], &%s[0], %d);   // row_cache: kept in registers", E->c_regs, E->cm, x->buf, 16 * nw);
    if (x->cached && E->cmode == C_KEEP_SMEM) {
      line(E, depth + 1, "if (%s) {   // row_cache: kept in shared memory", E->c_fits);
      for (int k = 0; k < nw; k++) {
        line(E, depth + 2, "memcpy(&%s, &%s[%d], 16);", w, x->buf, k * 16 / x->size);
        line(E, depth + 2, "reinterpret_cast<uint4 *>(&%s[%s])[%d] = %s;", E->c_smem, E->coff, k, w);
      }
      line(E, depth + 1, "}");
    }
  }
  line(E, depth, "}");
  /* row_cache's derived value: the first of its sweeps computes it (and keeps it below), the second
   * reads it where the element was kept. */
  int idx = (int)(it - E->r->items.data);
  bool from_cache = E->cmode == C_USE_REG || E->cmode == C_USE_SMEM;
  const VAcc *kx = NULL;
  for (int i = 0; i < v->n; i++)
    if (v->acc[i].cached && !v->acc[i].store) kx = &v->acc[i];
  bool derive = from_cache && kx && E->d_text && idx == E->d_a, derived = from_cache && kx && E->d_text && idx == E->d_b;
  KrVec(KrRowSub) subs = {0};
  for (size_t i = 0; i < v->subs.len; i++) kr_vec_push(E->a, &subs, v->subs.data[i]);
  const char *value = NULL;
  if (derive || derived) {
    Subs calls = {0};
    calls_in(E->t, it->body, E->d_text, E->a, &calls);
    E->vsubs = subs.data, E->nvsubs = subs.len;
    value = spliced(E, calls.data[0]);
    const char *as = derive ? kr_arena_printf(E->a, "%s[%s]", E->d_keep, v->k) : kr_arena_printf(E->a, "%s[%s]", kx->buf, v->k);
    for (size_t i = 0; i < calls.len; i++) kr_vec_push(E->a, &subs, ((KrRowSub){calls.data[i], as}));
    if (derive) line(E, depth, "float %s[%d];   // row_cache: %s, kept for a later sweep in place of %s", E->d_keep, v->V,
                     E->d_text, kx->array);
  }
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %d; %s++) {", v->k, v->k, v->V, v->k);
  E->vsubs = subs.data, E->nvsubs = subs.len;
  if (derive) line(E, depth + 1, "%s[%s] = %s;", E->d_keep, v->k, value);
  if (uses(spliced(E, it->body), it->var)) line(E, depth + 1, "const %s %s = %s + %s;", it->var_type, it->var, j0, v->k);
  fn(E, depth + 1, it, arg);
  E->vsubs = NULL, E->nvsubs = 0;
  line(E, depth, "}");
  if (derive && E->cmode == C_USE_REG)
    line(E, depth, "memcpy(&%s[%s][0], &%s[0], %d);   // row_cache: the derived values kept in registers", E->c_regs, E->cm,
         E->d_keep, 4 * v->V);
  for (int k = 0; derive && E->cmode == C_USE_SMEM && k < v->V * 4 / 16; k++) {
    line(E, depth, "memcpy(&%s, &%s[%d], 16);   // row_cache: the derived values kept in shared memory", w, E->d_keep, k * 4);
    line(E, depth, "reinterpret_cast<uint4 *>(&%s[%s])[%d] = %s;", E->c_smem, E->coff, k, w);
  }
  bool stores = false;
  for (int i = 0; i < v->n; i++) stores |= v->acc[i].store;
  if (!stores) return;
  line(E, depth, "{");
  line(E, depth + 1, "const %s %s = %s;", it->var_type, it->var, j0);
  for (int i = 0; i < v->n; i++) {
    const VAcc *x = &v->acc[i];
    if (!x->store) continue;
    for (int k = 0; k < v->V * x->size / 16; k++) {
      line(E, depth + 1, "memcpy(&%s, &%s[%d], 16);", w, x->buf, k * 16 / x->size);
      if (streamed(E, x)) line(E, depth + 1, "__stcs(&%s[%d], %s);   // streamed: evict first", words(E, x), k, w);
      else line(E, depth + 1, "%s[%d] = %s;", words(E, x), k, w);
    }
  }
  line(E, depth, "}");
}

/* The 16-byte steps of [start, hi): declares `vbeg` and `vend` and sets them to [vbeg, vend), V
 * elements a step from the first element at which every access of the step is 16-byte aligned (the
 * same element for all of them, else there are none). The elements before vbeg and from vend on
 * are walked one at a time. */
static void vec_bounds(Em *E, int depth, const KrRowItem *it, const Vec *v, const char *start, const char *hi,
                       const char *vbeg, const char *vend) {
  const char *head = fresh(E, "kr_head");
  line(E, depth, "long long %s = (long long)(%s), %s = %s;   // the 16-byte steps: [%s, %s)", vbeg, start, vend, vbeg,
       vbeg, vend);
  line(E, depth, "{");
  line(E, depth + 1, "const %s %s = %s;", it->var_type, it->var, start);
  KrBuf c = {0};
  for (int i = 0; i < v->n; i++) {
    const VAcc *x = &v->acc[i];
    const char *addr = fresh(E, "kr_address");
    line(E, depth + 1, "const unsigned long long %s = (unsigned long long)(const void *)&(%s);", addr, spliced(E, x->node));
    const char *to16 = kr_arena_printf(E->a, "(long long)((16 - (%s & 15)) & 15) / %d", addr, x->size);
    if (!i) line(E, depth + 1, "const long long %s = %s;   // elements before a 16-byte boundary", head, to16);
    kr_buf_printf(&c, "%s%s %% %d == 0", i ? " && " : "", addr, x->size);
    if (i) kr_buf_printf(&c, " && %s == %s", to16, head);
  }
  /* A row with fewer elements than one step for each of its threads stays one element at a time:
   * the steps would leave threads idle (a 32-element CSR row over a warp: 8 lanes of 32). */
  line(E, depth + 1, "if (%s && (long long)(%s) - %s - %s >= %d) {", c.data, hi, vbeg, head, E->per * v->V);
  line(E, depth + 2, "%s += %s;", vbeg, head);
  line(E, depth + 2, "%s = %s + ((long long)(%s) - %s) / %d * %d;", vend, vbeg, hi, vbeg, v->V, v->V);
  line(E, depth + 1, "}");
  line(E, depth, "}");
  kr_buf_free(&c);
}

/* The elements of [from, to) one at a time, strided over the row's threads. */
static void scalar_loop(Em *E, int depth, const KrRowItem *it, const char *from, const char *to, ElemFn fn, void *arg) {
  if (E->unroll) line(E, depth, "#pragma unroll 4");
  line(E, depth, "for (%s %s = (%s)(%s + %s); %s < %s; %s += %d) {", it->var_type, it->var, it->var_type, from, E->lane,
       it->var, to, it->var, E->per);
  fn(E, depth + 1, it, arg);
  line(E, depth, "}");
}

/* Loop `it` over [start, hi) (start: the row's or the part's first element, the same for the row's
 * threads), by 16-byte steps where v allows, then one element at a time. */
/* A thread's steps of [first, vend), `stride` elements apart, through vec_step. Where a step loads
 * from memory they go up to KR_BATCH at a time: the batch's loads first, then its steps in order (the
 * same order of operations as one step at a time; nvcc does not move a load above the previous
 * step's store, which may alias it as far as it knows, and the rows' steps are independent), so
 * several loads are in flight per thread. `off`, where row_cache keeps a step in shared memory,
 * is the step's offset there less its element. */
#define KR_BATCH 4
static void steps_loop(Em *E, int depth, const KrRowItem *it, const Vec *v, const char *first, const char *vend,
                       const char *off, ElemFn fn, void *arg) {
  const char *j0 = fresh(E, "kr_j0");
  int stride = E->per * v->V, nw = memory_words(E, v);
  /* At most 8 words a thread in flight: more registers for the batch cost blocks on the SM (a
   * layernorm sweep of x, weight and bias by 4 steps took 78 registers a thread, not 39, and ran
   * 13% slower on the H200 for it). */
  int B = nw >= 8 ? 1 : KR_BATCH * nw <= 8 ? KR_BATCH : 8 / nw;
  /* A warp's row is short (a batch of 4 steps is 512 elements): the batch's registers would cost
   * occupancy that a gathering row needs (spmv_csr's warp per 32-element row: 58 registers a thread
   * and 0.48 ms with batches, 0.28 ms without, on the H200). */
  if (E->lay == KR_LAYOUT_WARP) B = 1;
  if (!nw || B == 1) {   /* from row_cache alone, or one step at a time */
    if (!nw) line(E, depth, "#pragma unroll 4");
    else if (E->unroll) line(E, depth, "#pragma unroll 2");
    line(E, depth, "for (%s %s = (%s)(%s); %s < %s; %s += %d) {", it->var_type, j0, it->var_type, first, j0, vend, j0, stride);
    if (off) E->coff = kr_arena_printf(E->a, "%s - %s", j0, off);
    vec_step(E, depth + 1, it, v, j0, fn, arg);
    line(E, depth, "}");
    return;
  }
  const char *pre = fresh(E, "kr_pre"), *u = fresh(E, "kr_u"), *ju = fresh(E, "kr_ju");
  line(E, depth, "for (%s %s = (%s)(%s); %s < %s; %s += %d) {   // %d steps at a time, their loads first", it->var_type, j0,
       it->var_type, first, j0, vend, j0, B * stride, B);
  line(E, depth + 1, "uint4 %s[%d][%d];", pre, B, nw);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %d; %s++) {", u, u, B, u);
  line(E, depth + 2, "if (%s + %s * %d < %s) {", j0, u, stride, vend);
  step_loads(E, depth + 3, it, v, kr_arena_printf(E->a, "%s + %s * %d", j0, u, stride), kr_arena_printf(E->a, "%s[%s]", pre, u));
  line(E, depth + 2, "}");
  line(E, depth + 1, "}");
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %d; %s++) {", u, u, B, u);
  line(E, depth + 2, "const %s %s = %s + %s * %d;", it->var_type, ju, j0, u, stride);
  line(E, depth + 2, "if (%s < %s) {", ju, vend);
  if (off) E->coff = kr_arena_printf(E->a, "%s - %s", ju, off);
  E->pre = kr_arena_printf(E->a, "%s[%s]", pre, u);
  vec_step(E, depth + 3, it, v, ju, fn, arg);
  E->pre = NULL;
  line(E, depth + 2, "}");
  line(E, depth + 1, "}");
  line(E, depth, "}");
}

/* The keeper's access when its sweep loads nothing else and stores nothing, and without the
 * evict-first hint (which cp.async does not take): then the steps past the registers' can be
 * copied to shared memory by cp.async. NULL otherwise. */
static const VAcc *async_keepable(const Em *E, const Vec *v) {
  const VAcc *c = NULL;
  for (int i = 0; i < v->n; i++) {
    if (v->acc[i].store) return NULL;
    if (v->acc[i].cached) c = &v->acc[i];
    else return NULL;
  }
  return c && !streamed(E, c) ? c : NULL;
}

/* The steps of [vbeg, vend) in one of row_cache's modes (keep: the keeper's sweep; use: a later
 * one): each thread's first c_steps steps unrolled (their registers named at compile time), the rest
 * in a loop (shared memory at the step's offset past the registers' steps). */
static void cached_steps(Em *E, int depth, const KrRowItem *it, const Vec *v, const char *vbeg, const char *vend, bool keep,
                         ElemFn fn, void *arg) {
  const char *m = fresh(E, "kr_m"), *j0 = fresh(E, "kr_j0");
  int reg_span = E->c_steps * E->per * v->V;
  /* The keeper: the steps that go to shared memory are copied there by cp.async, every one of them
   * issued before the registers' steps load, so that the block's whole part is in flight at once
   * (with 4 steps at a time, softmax's first sweep waited on its loads for 28% of its stall samples
   * on the H200); they are read back for the sweep once they arrived. */
  const VAcc *ax = keep && E->c_cap ? async_keepable(E, v) : NULL;
  const char *first = kr_arena_printf(E->a, "%s + %s * %d + %d", vbeg, E->lane, v->V, reg_span);
  const char *off = kr_arena_printf(E->a, "%s - %d", vbeg, reg_span);
  if (ax) {
    const char *j = fresh(E, "kr_j0");
    E->async = true;
    line(E, depth, "if (%s) {   // row_cache: the steps past the registers' copied straight to shared memory (cp.async), all in "
         "flight before the first is used", E->c_fits);
    line(E, depth + 1, "for (%s %s = (%s)(%s); %s < %s; %s += %d) {", it->var_type, j, it->var_type, first, j, vend, j,
         E->per * v->V);
    line(E, depth + 2, "const %s %s = %s;", it->var_type, it->var, j);
    for (int k = 0; k < v->V * ax->size / 16; k++)
      line(E, depth + 2, "__pipeline_memcpy_async(&reinterpret_cast<uint4 *>(&%s[%s - %s])[%d], &%s[%d], 16);", E->c_smem, j, off,
           k, words(E, ax), k);
    line(E, depth + 1, "}");
    line(E, depth + 1, "__pipeline_commit();");
    line(E, depth, "}");
  }
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %d; %s++) {", m, m, E->c_steps, m);
  line(E, depth + 1, "const %s %s = (%s)(%s + %s * %d + %s * %d);", it->var_type, j0, it->var_type, vbeg, E->lane, v->V, m,
       E->per * v->V);
  line(E, depth + 1, "if (%s < %s) {", j0, vend);
  E->cmode = keep ? C_KEEP_REG : C_USE_REG, E->cm = m;
  vec_step(E, depth + 2, it, v, j0, fn, arg);
  line(E, depth + 1, "}");
  line(E, depth, "}");
  E->cmode = C_NONE;
  if (!keep && !E->c_cap) return;   /* a kept row fits in the registers' steps: nothing past them */
  if (ax) {
    line(E, depth, "if (%s) {", E->c_fits);
    line(E, depth + 1, "__pipeline_wait_prior(0);   // row_cache: this thread's copies arrived");
    E->cmode = C_USE_SMEM;
    steps_loop(E, depth + 1, it, v, first, vend, off, fn, arg);
    line(E, depth, "} else {");
    E->cmode = C_NONE;
    steps_loop(E, depth + 1, it, v, first, vend, NULL, fn, arg);
    line(E, depth, "}");
    return;
  }
  E->cmode = keep ? C_KEEP_SMEM : C_USE_SMEM;
  steps_loop(E, depth, it, v, first, vend, off, fn, arg);
  E->cmode = C_NONE;
}

static bool has_cached(const Vec *v) {
  for (int i = 0; i < v->n; i++)
    if (v->acc[i].cached) return true;
  return false;
}

static void vec_sweep(Em *E, int depth, const KrRowItem *it, const Vec *v, const char *start, const char *hi, ElemFn fn,
                      void *arg) {
  int idx = (int)(it - E->r->items.data);
  bool keep = E->c_array && idx == E->c_keeper && has_cached(v);
  bool use = E->c_array && idx > E->c_keeper && has_cached(v) && v->V == E->c_V;
  const char *vbeg = fresh(E, "kr_vbeg"), *vend = fresh(E, "kr_vend");
  line(E, depth, "// %d elements a step by 16-byte words from the first element where the row's accesses are 16-byte "
       "aligned", v->V);
  vec_bounds(E, depth, it, v, start, hi, vbeg, vend);
  if (keep) {
    E->c_vbeg = vbeg, E->c_vend = vend, E->c_V = v->V;
    line(E, depth, "const bool %s = %s - %s <= %d;   // row_cache: the row's steps fit in registers and shared memory",
         E->c_fits, vend, vbeg, E->c_steps * E->per * v->V + E->c_cap);
  }
  bool unroll = E->unroll;
  E->unroll = false;
  scalar_loop(E, depth, it, kr_arena_printf(E->a, "(%s)", start), vbeg, fn, arg);   /* fewer than V elements */
  E->unroll = unroll;
  if (keep) {
    line(E, depth, "// row_cache: each thread's steps of %s kept on chip for the later sweeps", E->c_array);
    cached_steps(E, depth, it, v, vbeg, vend, true, fn, arg);
  } else {
    if (use && E->d_text && idx == E->d_a) line(E, depth, "bool %s = false;   // row_cache: this sweep leaves %s in the cache",
                                                E->d_flag, E->d_text);
    if (use) {
      bool second = E->d_text && idx == E->d_b;
      line(E, depth, "if (%s && %s == %s && %s == %s) {   // row_cache: the steps the first sweep kept%s", second ? E->d_flag : E->c_fits,
           vbeg, E->c_vbeg, vend, E->c_vend, second ? kr_arena_printf(E->a, " (now holding %s)", E->d_text) : "");
      if (E->d_text && idx == E->d_a) line(E, depth + 1, "%s = true;", E->d_flag);
      cached_steps(E, depth + 1, it, v, vbeg, vend, false, fn, arg);
      line(E, depth, "} else {");
      depth++;
    }
    steps_loop(E, depth, it, v, kr_arena_printf(E->a, "%s + %s * %d", vbeg, E->lane, v->V), vend, NULL, fn, arg);
    if (use) line(E, --depth, "}");
  }
  scalar_loop(E, depth, it, vend, hi, fn, arg);
}

/* Loop `it` over the row (split_rows: over the block's part), vectorised where it can be. */
static void sweep(Em *E, int depth, const KrRowItem *it, ElemFn fn, void *arg) {
  Vec v;
  if (!vec_of(E, it, &v)) {
    sweep_head(E, depth, it);
    fn(E, depth + 1, it, arg);
    line(E, depth, "}");
    return;
  }
  if (E->split) {
    slice(E, depth, it);
    vec_sweep(E, depth, it, &v, E->from, E->to, fn, arg);
  } else {
    vec_sweep(E, depth, it, &v, it->lo, it->hi, fn, arg);
  }
}

static void elem_body(Em *E, int depth, const KrRowItem *it, void *arg) {
  (void)arg;
  loop_body(E, depth, it);
}

/* online_softmax's update for one element. */
typedef struct OnlineElem {
  const char *v, *e;
} OnlineElem;

static void online_elem(Em *E, int depth, const KrRowItem *it, void *arg) {
  (void)it;
  const OnlineElem *o = arg;
  const KrRowAcc *m = &E->r->accs.data[E->on.m], *s = &E->r->accs.data[E->on.s];
  /* One exponential per element, of -|v - max|: exp(max - v) when v is the new maximum, exp(v - max)
   * otherwise, the same values either way, with no branch around the exponential. */
  line(E, depth, "%s %s = %s;", m->type, o->v, spliced(E, m->value));
  line(E, depth, "%s %s = %s(-%s(%s - %s));", s->type, o->e, E->on.exp, strcmp(m->type, "double") ? "fabsf" : "fabs", o->v,
       m->name);
  line(E, depth, "if (%s > %s) {", o->v, m->name);
  line(E, depth + 1, "%s = %s * %s + %s;", s->name, s->name, o->e, one_of(s->type));
  line(E, depth + 1, "%s = %s;", m->name, o->v);
  line(E, depth, "} else if (%s > -INFINITY) {", o->v);
  line(E, depth + 1, "%s += %s;", s->name, o->e);
  line(E, depth, "}");
}

/* welford: element j of a batch into its slot (BATCH[SLOT], the batch's sum and count). */
typedef struct WelfordElem {
  const char *bv, *slot, *bs, *bn;
} WelfordElem;

static void welford_elem(Em *E, int depth, const KrRowItem *it, void *arg) {
  (void)it;
  const WelfordElem *w = arg;
  line(E, depth, "%s[%s] = %s - %s;", w->bv, w->slot, spliced(E, E->r->accs.data[E->wf.sum].value), E->shift);
  line(E, depth, "%s += %s[%s];", w->bs, w->bv, w->slot);
  line(E, depth, "%s++;", w->bn);
}

/* welford's batches over [start, to): each thread's elements eight at a time (their mean, a sum
 * times 1/8, exact, and their sum of squared deviations), each batch then folded into the running
 * triple by Chan's combine: one division per batch instead of one per element, and the same
 * stability (deviations from a nearby mean). With v, a batch is 8 / V steps of V elements (the
 * steps whole, in order, so a batch's elements are a prefix of its slots). */
static void welford_batches(Em *E, int depth, const KrRowItem *it, Red *rd, const Vec *v, const char *start,
                            const char *to) {
  const KrRowAcc *s = &E->r->accs.data[E->wf.sum];
  const char *n = rd->g[0].st[0].name, *mean = rd->g[0].st[1].name, *m2 = rd->g[0].st[2].name;
  const char *j0 = fresh(E, "kr_j0"), *bv = fresh(E, "kr_batch"), *bn = fresh(E, "kr_batch_count"),
             *bs = fresh(E, "kr_batch_sum"), *bm = fresh(E, "kr_batch_mean"), *bq = fresh(E, "kr_batch_m2"),
             *b = fresh(E, "kr_b"), *tn = fresh(E, "kr_total"), *d = fresh(E, "kr_d");
  if (v) line(E, depth, "for (%s %s = (%s)((%s) + %s * %d); %s < %s; %s += %d) {", it->var_type, j0, it->var_type, start,
              E->lane, v->V, j0, to, j0, 8 * E->per);
  else line(E, depth, "for (%s %s = (%s)((%s) + %s); %s < %s; %s += %d) {", it->var_type, j0, it->var_type, start, E->lane,
            j0, to, j0, 8 * E->per);
  line(E, depth + 1, "%s %s[8];", s->type, bv);
  line(E, depth + 1, "int %s = 0;", bn);
  line(E, depth + 1, "%s %s = 0;", s->type, bs);
  line(E, depth + 1, "#pragma unroll");
  if (v) {
    const char *jc = fresh(E, "kr_jc");
    WelfordElem w = {bv, kr_arena_printf(E->a, "%s * %d + %s", b, v->V, v->k), bs, bn};
    line(E, depth + 1, "for (int %s = 0; %s < %d; %s++) {", b, b, 8 / v->V, b);
    line(E, depth + 2, "const %s %s = %s + %s * %d;", it->var_type, jc, j0, b, E->per * v->V);
    line(E, depth + 2, "if (%s < %s) {", jc, to);
    vec_step(E, depth + 3, it, v, jc, welford_elem, &w);
    line(E, depth + 2, "}");
  } else {
    WelfordElem w = {bv, b, bs, bn};
    line(E, depth + 1, "for (int %s = 0; %s < 8; %s++) {", b, b, b);
    line(E, depth + 2, "const %s %s = %s + %s * %d;", it->var_type, it->var, j0, b, E->per);
    line(E, depth + 2, "if (%s < %s) {", it->var, to);
    welford_elem(E, depth + 3, it, &w);
    line(E, depth + 2, "}");
  }
  line(E, depth + 1, "}");
  line(E, depth + 1, "const %s %s = %s == 8 ? %s * 0.125f : %s / (%s)%s;", s->type, bm, bn, bs, bs, s->type, bn);
  line(E, depth + 1, "%s %s = 0;", s->type, bq);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < 8; %s++) {", b, b, b);
  line(E, depth + 2, "if (%s < %s) {", b, bn);
  line(E, depth + 3, "%s %s = %s[%s] - %s;", s->type, d, bv, b, bm);
  line(E, depth + 3, "%s += %s * %s;", bq, d, d);
  line(E, depth + 2, "}");
  line(E, depth + 1, "}");
  line(E, depth + 1, "const int %s = %s + %s;", tn, n, bn);
  line(E, depth + 1, "const %s %s = %s - %s;", s->type, d, bm, mean);
  line(E, depth + 1, "%s += %s * ((%s)%s / (%s)%s);", mean, d, s->type, bn, s->type, tn);
  line(E, depth + 1, "%s += %s + %s * %s * ((%s)%s * (%s)%s / (%s)%s);", m2, bq, d, d, s->type, n, s->type, bn, s->type,
       tn);
  line(E, depth + 1, "%s = %s;", n, tn);
  line(E, depth, "}");
}

static void red_sweep(Em *E, int depth, size_t i, Red *rd) {
  const KrRows *r = E->r;
  const KrRowItem *it = &r->items.data[i];
  if (E->online && (int)i == E->on.l1) {
    OnlineElem o = {fresh(E, "kr_v"), fresh(E, "kr_e")};
    line(E, depth, "// online_softmax: the maximum and the sum of %s(v - max) in one sweep, the sum rescaled when the "
         "maximum grows", E->on.exp);
    E->unroll = true;
    sweep(E, depth, it, online_elem, &o);
    E->unroll = false;
  } else if (E->welford && (int)i == E->wf.l1) {
    line(E, depth, "// welford: the count, mean and M2 of the row in one sweep (batches of 8 per thread, Chan's "
         "combine)");
    const char *start = it->lo, *to = it->hi;
    if (E->split) {
      slice(E, depth, it);
      start = E->from, to = E->to;
    }
    Vec v;
    if (vec_of(E, it, &v) && 8 % v.V == 0) {
      const char *vbeg = fresh(E, "kr_vbeg"), *vend = fresh(E, "kr_vend");
      line(E, depth, "// %d elements a step by 16-byte words from the first element where the row's accesses are "
           "16-byte aligned", v.V);
      vec_bounds(E, depth, it, &v, start, to, vbeg, vend);
      welford_batches(E, depth, it, rd, NULL, start, vbeg);
      welford_batches(E, depth, it, rd, &v, vbeg, vend);
      start = vend;
    }
    welford_batches(E, depth, it, rd, NULL, start, to);
  } else {
    E->unroll = true;
    sweep(E, depth, it, elem_body, NULL);
    E->unroll = false;
  }
  for (int k = 0; k < rd->ng; k++) reduce(E, depth, &rd->g[k], rd->parts[k]);
}

static void red_post(Em *E, size_t i, Red *rd) {
  const KrRows *r = E->r;
  if (E->welford && (int)i == E->wf.l1) {
    const KrRowAcc *s = &r->accs.data[E->wf.sum];
    line(E, 1, "%s += %s * (%s)%s + %s * (%s)%s;", s->name, E->shift, s->type, rd->g[0].st[0].name, rd->g[0].st[1].name,
         s->type, rd->g[0].st[0].name);
    return;
  }
  if (E->online && (int)i == E->on.l1) {
    const KrRowAcc *s = &r->accs.data[E->on.s];
    if (rd->init0[0]) line(E, 1, "%s = %s + %s;", s->name, rd->init0[0], s->name);
    return;
  }
  for (int k = 0; k < rd->ng; k++)
    if (rd->init0[k]) line(E, 1, "%s = %s + %s;", rd->g[k].acc->name, rd->init0[k], rd->g[k].acc->name);
}

/* split_rows: a state slot of the workspace, as an lvalue of `type`. */
static const char *slot(Em *E, const char *type, int q, const char *part, int k) {
  return kr_arena_printf(E->a, "*reinterpret_cast<%s *>(%s + ((((size_t)%s * %d + %d) * %d + %s) * %d + %d) * 8)", type,
                         E->ws, E->r->row, E->nred, q, E->s->row_parts, part, E->nslots, k);
}

/* split_rows: this block's part of reduction q published (its partial state, then its arrival); a
 * stage's block then leaves (`leave`), a resident block goes on to wait for the others. */
static void publish(Em *E, int depth, Red *rd, bool leave) {
  int k = 0;
  line(E, depth, "if (threadIdx.x == 0) {");
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, k++)
      line(E, depth + 1, "%s = %s;", slot(E, rd->g[g].st[x].type, rd->q, E->part, k), rd->g[g].st[x].name);
  line(E, depth + 1, "__threadfence();");
  line(E, depth + 1, "atomicAdd(&%s[%s * %d + %d], 1u);", E->arrive, E->r->row, E->nred, rd->q);
  line(E, depth, "}");
  if (leave) line(E, depth, "return;");
}

/* split_rows: part `part`'s state k of reduction rd as an rvalue of `type`. */
typedef const char *(*PartState)(Em *E, const Red *rd, const char *type, const char *part, int k, const char *const *slots);

static const char *workspace_state(Em *E, const Red *rd, const char *type, const char *part, int k, const char *const *slots) {
  (void)slots;
  return kr_arena_printf(E->a, "__ldcg(&%s)", slot(E, type, rd->q, part, k));
}

static const char *cluster_state(Em *E, const Red *rd, const char *type, const char *part, int k, const char *const *slots) {
  (void)rd, (void)type;
  return kr_arena_printf(E->a, "*%s.map_shared_rank(&%s, %s)", E->cl, slots[k], part);
}

/* The PARTS states of reduction rd combined in the order 0, 1, …, PARTS - 1 (the same bits in
 * every block that does it), each read through `state`. */
static void combine_parts(Em *E, Red *rd, const char *counter, PartState state, const char *const *slots) {
  int k = 0;
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, k++)
      line(E, 1, "%s = %s;", rd->g[g].st[x].name, state(E, rd, rd->g[g].st[x].type, "0", k, slots));
  const char *p = fresh(E, counter);
  line(E, 1, "for (int %s = 1; %s < %s; %s++) {", p, p, E->np, p);
  k = 0;
  for (int g = 0; g < rd->ng; g++) {
    const char *o[3];
    for (int x = 0; x < rd->g[g].nst; x++, k++) {
      o[x] = fresh(E, kr_arena_printf(E->a, "%s_part", rd->g[g].st[x].name));
      line(E, 2, "%s %s = %s;", rd->g[g].st[x].type, o[x], state(E, rd, rd->g[g].st[x].type, p, k, slots));
    }
    combine(E, 2, &rd->g[g], o);
  }
  line(E, 1, "}");
}

/* split_rows: the row's states of reduction rd in the workspace (all arrived) combined by warp 0 and
 * handed to the block's threads through shared memory. Lane l takes the parts l, l + 32, l + 64, …
 * in that order, then a shuffle tree joins the lanes (a lane with no part has no state: kr_has), so
 * the order is fixed and every block of the row gets the same bits. When every thread read all
 * PARTS states, a block made PARTS loads a thread (layernorm's resident split: 0.78 ms); one thread
 * alone waits out PARTS round trips. */
static void warp_gather(Em *E, Red *rd) {
  const char *has = fresh(E, "kr_has"), *p = fresh(E, "kr_p"), *oh = fresh(E, "kr_has_other");
  const char *slot[8 * 3];
  int n = 0;
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, n++) {
      const State *st = &rd->g[g].st[x];
      slot[n] = fresh(E, kr_arena_printf(E->a, "kr_%s_row", st->name + (strncmp(st->name, "kr_", 3) ? 0 : 3)));
      line(E, 1, "__shared__ %s %s;", st->type, slot[n]);
    }
  line(E, 1, "if (threadIdx.x < 32) {   // warp 0: lane l the parts l, l + 32, ... in order, then a shuffle tree");
  line(E, 2, "bool %s = (int)threadIdx.x < %s;", has, E->np);
  line(E, 2, "if (%s) {", has);
  for (int g = 0, k = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, k++)
      line(E, 3, "%s = %s;", rd->g[g].st[x].name, workspace_state(E, rd, rd->g[g].st[x].type, "threadIdx.x", k, NULL));
  line(E, 2, "}");
  line(E, 2, "for (int %s = threadIdx.x + 32; %s < %s; %s += 32) {", p, p, E->np, p);
  for (int g = 0, k = 0; g < rd->ng; g++) {
    const char *o[3];
    for (int x = 0; x < rd->g[g].nst; x++, k++) {
      o[x] = fresh(E, kr_arena_printf(E->a, "%s_part", rd->g[g].st[x].name));
      line(E, 3, "%s %s = %s;", rd->g[g].st[x].type, o[x], workspace_state(E, rd, rd->g[g].st[x].type, p, k, NULL));
    }
    combine(E, 3, &rd->g[g], o);
  }
  line(E, 2, "}");
  line(E, 2, "for (int %s = 16; %s > 0; %s /= 2) {", E->off, E->off, E->off);
  line(E, 3, "const bool %s = __shfl_down_sync(0xffffffffu, %s, %s) && threadIdx.x + %s < 32;", oh, has, E->off, E->off);
  const char *o[8][3];
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++) {
      o[g][x] = fresh(E, kr_arena_printf(E->a, "%s_other", rd->g[g].st[x].name));
      line(E, 3, "%s %s = __shfl_down_sync(0xffffffffu, %s, %s);", rd->g[g].st[x].type, o[g][x], rd->g[g].st[x].name, E->off);
    }
  line(E, 3, "if (%s && %s) {", oh, has);
  for (int g = 0; g < rd->ng; g++) combine(E, 4, &rd->g[g], o[g]);
  line(E, 3, "} else if (%s) {", oh);
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++) line(E, 4, "%s = %s;", rd->g[g].st[x].name, o[g][x]);
  line(E, 4, "%s = true;", has);
  line(E, 3, "}");
  line(E, 2, "}");
  line(E, 2, "if (threadIdx.x == 0) {");
  for (int g = 0, k = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, k++) line(E, 3, "%s = %s;", slot[k], rd->g[g].st[x].name);
  line(E, 2, "}");
  line(E, 1, "}");
  line(E, 1, "__syncthreads();");
  for (int g = 0, k = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, k++) line(E, 1, "%s = %s;", rd->g[g].st[x].name, slot[k]);
}

/* split_rows: after every part of reduction q arrived, the parts' states combined in a fixed order
 * (warp_gather: the same bits in every block); the last reader resets the counters. */
static void gather(Em *E, Red *rd) {
  int P = E->s->row_parts, q = rd->q;
  const char *cnt = kr_arena_printf(E->a, "%s[%s * %d + %d]", E->arrive, E->r->row, E->nred, q);
  const char *done = kr_arena_printf(E->a, "%s[%s * %d + %d]", E->done, E->r->row, E->nred, q);
  /* A resident row's parts are the launch's (kr_parts); a stage's are PARTS. */
  const char *parts = E->resident ? kr_arena_printf(E->a, "(unsigned int)%s", E->np) : kr_arena_printf(E->a, "%du", P);
  line(E, 1, "// split_rows: the row's %sparts of this reduction, combined in a fixed order once all arrived",
       E->resident ? "" : kr_arena_printf(E->a, "%d ", P));
  line(E, 1, "if (threadIdx.x == 0) {");
  line(E, 2, "while (atomicAdd(&%s, 0u) < %s) {", cnt, parts);
  line(E, 3, "__nanosleep(200);   // poll gently: the parts still walking the row need the memory system");
  line(E, 2, "}");
  line(E, 1, "}");
  line(E, 1, "__syncthreads();");
  line(E, 1, "__threadfence();");
  warp_gather(E, rd);
  if (E->resident)
    line(E, 1, "if (threadIdx.x == 0 && atomicAdd(&%s, 1u) == (unsigned int)%s - 1u) {   // the last of the row's blocks "
         "reading these", done, E->np);
  else
    line(E, 1, "if (threadIdx.x == 0 && atomicAdd(&%s, 1u) == %du) {   // the last of the %d blocks reading these",
         done, (E->nred - q) * P - 1, (E->nred - q) * P);
  line(E, 2, "%s = 0u;", cnt);
  line(E, 2, "%s = 0u;", done);
  line(E, 1, "}");
}

/* The name of a shared slot of state `name` ("kr_" + the name without its own "kr_" + suffix). */
static const char *slot_name(Em *E, const char *name, const char *suffix) {
  return fresh(E, kr_arena_printf(E->a, "kr_%s_%s", name + (strncmp(name, "kr_", 3) ? 0 : 3), suffix));
}

/* split_rows over a cluster: this block's partial state of reduction q left in its shared memory;
 * once every block of the cluster has left its own (cluster.sync), each thread combines the
 * cluster's states in rank order 0, 1, …, PARTS - 1 (the same bits in every block), reading the
 * other blocks' shared memory. The slots are not reused, so the next barrier is the last. */
static void exchange(Em *E, Red *rd) {
  int P = E->s->row_parts;
  const char *slot[3 * 4];
  int k = 0;
  line(E, 1, "// split_rows: the cluster's %d partial states of this reduction, combined in rank order", P);
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, k++) {
      slot[k] = slot_name(E, rd->g[g].st[x].name, "block");
      line(E, 1, "__shared__ %s %s;", rd->g[g].st[x].type, slot[k]);
    }
  line(E, 1, "if (threadIdx.x == 0) {");
  for (int i = 0; i < k; i++) {
    int g = 0, x = i;
    while (x >= rd->g[g].nst) x -= rd->g[g].nst, g++;
    line(E, 2, "%s = %s;", slot[i], rd->g[g].st[x].name);
  }
  line(E, 1, "}");
  line(E, 1, "%s.sync();", E->cl);
  combine_parts(E, rd, "kr_rank", cluster_state, slot);
}

static const char *pushed_state(Em *E, const Red *rd, const char *type, const char *part, int k, const char *const *slots) {
  (void)rd, (void)type;
  return kr_arena_printf(E->a, "%s[%s]", slots[k], part);
}

/* split_rows over a cluster, pushed: thread 0 puts this block's partial state of reduction q into
 * slot `part` of every block of the cluster (kr_cluster_push: st.async onto that block's mbarrier
 * for q); each thread waits until its own block's mbarrier has counted every part's bytes, then
 * combines the slots in rank order 0, 1, …, PARTS - 1 (the same bits in every block). No block
 * reads another's shared memory, so nothing waits for the others at the end, and no cluster
 * barrier (with the GPU-wide fence it compiles to) stands between the sweeps. */
static void exchange_push(Em *E, Red *rd) {
  int P = E->s->row_parts;
  const char *const *slot = rd->pushed;
  line(E, 1, "// split_rows: the cluster's %d partial states of this reduction, pushed into every block and combined in "
       "rank order", P);
  if (rd->q == 0) line(E, 1, "kr_cluster_opened();   // every block's mbarriers are ready for the pushes");
  const char *to = fresh(E, "kr_to");
  line(E, 1, "if (threadIdx.x == 0) {");
  line(E, 2, "for (unsigned int %s = 0; %s < %du; %s++) {", to, to, P, to);
  int k = 0;
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++, k++)
      line(E, 3, "kr_cluster_push(&%s[%s], &%s[%d], %s, %s);", slot[k], E->part, E->arrivals, rd->q, to, rd->g[g].st[x].name);
  line(E, 2, "}");
  line(E, 1, "}");
  line(E, 1, "kr_cluster_wait(&%s[%d]);", E->arrivals, rd->q);
  combine_parts(E, rd, "kr_rank", pushed_state, slot);
}

/* split_rows over a cluster, pushed: the device functions the kernel calls, put before it once a
 * file. The CPU emulator defines KR_CUDA_EMULATOR and its own kr_cluster_* (runtime/emu/kr_emu_cluster.h),
 * with these semantics; its view of the .cu leaves this block to the preprocessor. */
static const char cluster_push_helpers[] =
    "#ifndef KR_CUDA_EMULATOR\n"
    "#ifndef KR_CLUSTER_PUSH\n"
    "#define KR_CLUSTER_PUSH\n"
    "// krewrite split_rows: a cluster's blocks push partial states into each other's shared memory (st.async), each\n"
    "// block's mbarrier counting the bytes that arrive, so no cluster barrier stands between the sweeps (sm_90)\n"
    "__device__ __forceinline__ unsigned kr_cluster_address(const void *p, unsigned rank) {\n"
    "  unsigned a;\n"
    "  asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(a) : \"r\"((unsigned)__cvta_generic_to_shared(p)), \"r\"(rank));\n"
    "  return a;\n"
    "}\n"
    "// this block's mbarrier `bar` expects `bytes` in pushes (by thread 0, before kr_cluster_open)\n"
    "__device__ __forceinline__ void kr_cluster_expect(unsigned long long *bar, unsigned bytes) {\n"
    "  unsigned b = (unsigned)__cvta_generic_to_shared(bar);\n"
    "  asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" : : \"r\"(b) : \"memory\");\n"
    "  asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" : : \"r\"(b), \"r\"(bytes) : \"memory\");\n"
    "}\n"
    "// every thread: this block's mbarriers are ready; kr_cluster_opened waits until every block's are\n"
    "__device__ __forceinline__ void kr_cluster_open() {\n"
    "  asm volatile(\"fence.mbarrier_init.release.cluster;\" : : : \"memory\");\n"
    "  asm volatile(\"barrier.cluster.arrive.relaxed.aligned;\" : : : \"memory\");\n"
    "}\n"
    "__device__ __forceinline__ void kr_cluster_opened() { asm volatile(\"barrier.cluster.wait.aligned;\" : : : \"memory\"); }\n"
    "// v into `slot` of block `rank`'s shared memory, counted by that block's mbarrier `bar`\n"
    "template <class T> __device__ __forceinline__ void kr_cluster_push(T *slot, unsigned long long *bar, unsigned rank, T v) {\n"
    "  static_assert(sizeof(T) == 4 || sizeof(T) == 8, \"kr_cluster_push moves 4 or 8 bytes\");\n"
    "  const unsigned s = kr_cluster_address(slot, rank), b = kr_cluster_address(bar, rank);\n"
    "  if constexpr (sizeof(T) == 4) {\n"
    "    unsigned u;\n"
    "    memcpy(&u, &v, 4);\n"
    "    asm volatile(\"st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];\" : : \"r\"(s), \"r\"(u), \"r\"(b) : \"memory\");\n"
    "  } else {\n"
    "    unsigned long long u;\n"
    "    memcpy(&u, &v, 8);\n"
    "    asm volatile(\"st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];\" : : \"r\"(s), \"l\"(u), \"r\"(b) : \"memory\");\n"
    "  }\n"
    "}\n"
    "// until every byte this block's mbarrier `bar` expects has arrived\n"
    "__device__ __forceinline__ void kr_cluster_wait(unsigned long long *bar) {\n"
    "  const unsigned b = (unsigned)__cvta_generic_to_shared(bar);\n"
    "  unsigned done = 0;\n"
    "  while (!done)\n"
    "    asm volatile(\"{\\n\\t.reg .pred p;\\n\\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\\n\\t\"\n"
    "                 \"selp.u32 %0, 1, 0, p;\\n\\t}\" : \"=r\"(done) : \"r\"(b) : \"memory\");\n"
    "}\n"
    "#endif\n"
    "#endif\n"
    "\n";

/* Whether every partial state of the reductions is a 4- or 8-byte scalar, which st.async moves. */
static bool pushable(const Red *reds, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (int g = 0; g < reds[i].ng; g++)
      for (int x = 0; x < reds[i].g[g].nst; x++) {
        int b = elem_bytes(reds[i].g[g].st[x].type);
        if (b != 4 && b != 8) return false;
      }
  return true;
}

/* The bytes every part's states of reduction rd take, as C. */
static const char *state_bytes(Em *E, const Red *rd) {
  KrBuf b = {0};
  for (int g = 0; g < rd->ng; g++)
    for (int x = 0; x < rd->g[g].nst; x++) kr_buf_printf(&b, "%ssizeof(%s)", b.len ? " + " : "", rd->g[g].st[x].type);
  const char *r = kr_arena_strdup(E->a, b.data ? b.data : "0");
  kr_buf_free(&b);
  return r;
}

/* split_rows' workspace counters (an arrival and a read counter per row and reduction after the
 * states, then the ticket counter) and the block's ticket, taken by its thread 0 when it starts; the
 * last ticket sets the counter back to zero. Returns the ticket's name. */
static const char *take_ticket(Em *E, const char *rows) {
  const char *unit = fresh(E, "kr_unit"), *u = fresh(E, "kr_u"), *ticket = fresh(E, "kr_ticket");
  int R = E->nred;
  E->arrive = fresh(E, "kr_arrived"), E->done = fresh(E, "kr_read");
  line(E, 1, "unsigned int *%s = reinterpret_cast<unsigned int *>(%s + (size_t)(%s) * %d * %d * %d * 8);", E->arrive, E->ws,
       rows, R, E->s->row_parts, E->nslots);
  line(E, 1, "unsigned int *%s = %s + (size_t)(%s) * %d, *%s = %s + (size_t)(%s) * %d;", E->done, E->arrive, rows, R,
       ticket, E->arrive, rows, 2 * R);
  line(E, 1, "__shared__ unsigned int %s;", unit);
  line(E, 1, "if (threadIdx.x == 0) {");
  line(E, 2, "%s = atomicAdd(%s, 1u);", unit, ticket);
  line(E, 2, "if (%s == gridDim.x - 1) *%s = 0u;   // every ticket taken: back at zero for the next launch", unit, ticket);
  line(E, 1, "}");
  line(E, 1, "__syncthreads();");
  line(E, 1, "const unsigned int %s = %s;", u, unit);
  return u;
}

static void emit_items(Em *E) {
  const KrRows *r = E->r;
  const KrTree *t = E->t;
  /* The groups of every reduction loop, and their shared arrays, first. */
  Red *reds = kr_arena_alloc(E->a, r->items.len * sizeof *reds);
  memset(reds, 0, r->items.len * sizeof *reds);   /* ng 0: not a reduction */
  E->seen_of = kr_arena_alloc(E->a, (r->accs.len + 1) * sizeof *E->seen_of);
  int q = 0;
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *it = &r->items.data[i];
    Red *rd = &reds[i];
    if (it->kind != KR_ROW_LOOP || !it->accs.len) continue;
    if ((E->online && (int)i == E->on.l2) || (E->welford && (int)i == E->wf.l2)) continue;
    if (E->online && (int)i == E->on.l1) {
      const KrRowAcc *m = &r->accs.data[E->on.m], *s = &r->accs.data[E->on.s];
      Group *g = &rd->g[0];
      *g = (Group){.kind = G_ONLINE, .acc = m, .exp = E->on.exp, .max = m->fn};
      g->st[g->nst++] = (State){m->name, m->type};
      g->st[g->nst++] = (State){s->name, s->type};
      rd->ng = 1;
    } else if (E->welford && (int)i == E->wf.l1) {
      const KrRowAcc *s = &r->accs.data[E->wf.sum];
      Group *g = &rd->g[0];
      *g = (Group){.kind = G_WELFORD, .acc = s};
      g->st[g->nst++] = (State){fresh(E, "kr_count"), "int"};
      g->st[g->nst++] = (State){fresh(E, "kr_mean"), s->type};
      g->st[g->nst++] = (State){fresh(E, "kr_m2"), s->type};
      rd->ng = 1;
    } else {
      rd->ng = groups_of(E, it, rd->g);
      for (int k = 0; k < rd->ng; k++)
        if (rd->g[k].kind == G_ARG) E->seen_of[rd->g[k].acc - r->accs.data] = rd->g[k].st[2].name;
    }
    rd->q = q++;
    int slots = 0;
    for (int k = 0; k < rd->ng; k++) {
      group_shared(E, &rd->g[k], rd->parts[k]);
      slots += rd->g[k].nst;
    }
    if (slots > E->nslots) E->nslots = slots;
  }
  E->nred = q;
  /* The row. */
  /* The row count, in the kernel: the guard's bound, or 1 for a kernel of one row. */
  const char *row = r->row, *guard_hi = r->single ? "1" : r->elements ? r->row_count
                                      : !ts_node_is_null(r->guard_hi) ? kr_node_text_flat(t, r->guard_hi, E->a) : NULL;
  if (r->single) line(E, 1, "// the one row: the original has no row index (every block of its launch computed it)");
  if (E->cluster) {
    int P = E->s->row_parts;
    E->cl = fresh(E, "kr_cluster");
    line(E, 1, "// split_rows: each row over a cluster of %d blocks (__cluster_dims__), which meet in distributed shared "
         "memory", P);
    line(E, 1, "cooperative_groups::cluster_group %s = cooperative_groups::this_cluster();", E->cl);
    line(E, 1, "const int %s = (int)%s.block_rank();", E->part, E->cl);
    line(E, 1, "int %s = blockIdx.x / %d;", row, P);
    line(E, 1, "int %s = threadIdx.x;", E->lane);
    line(E, 1, "if (%s >= %s) return;   // the whole cluster: its blocks share the row", row, guard_hi);
    if ((E->push = E->nred > 0 && pushable(reds, r->items.len))) {
      E->arrivals = fresh(E, "kr_arrivals");
      line(E, 1, "// split_rows: the blocks push their partial states into each other's shared memory; each of this block's "
           "mbarriers counts");
      line(E, 1, "// the bytes of one reduction's %d parts", P);
      line(E, 1, "__shared__ unsigned long long %s[%d];", E->arrivals, E->nred);
      for (size_t i = 0; i < r->items.len; i++) {   /* the slots: in place before any block pushes */
        int k = 0;
        for (int g = 0; g < reds[i].ng; g++)
          for (int x = 0; x < reds[i].g[g].nst; x++, k++) {
            const State *st = &reds[i].g[g].st[x];
            reds[i].pushed[k] = slot_name(E, st->name, "slots");
            line(E, 1, "__shared__ %s %s[%d];", st->type, reds[i].pushed[k], P);
          }
      }
      line(E, 1, "if (threadIdx.x == 0) {");
      for (size_t i = 0; i < r->items.len; i++)
        if (reds[i].ng) line(E, 2, "kr_cluster_expect(&%s[%d], %d * (%s));", E->arrivals, reds[i].q, P, state_bytes(E, &reds[i]));
      line(E, 1, "}");
      line(E, 1, "kr_cluster_open();   // this block's mbarriers are ready (waited for before the first push)");
    }
  } else if (E->resident) {
    line(E, 1, "// split_rows: each row over up to %d blocks that run every sweep of their part and meet in the workspace; "
         "a block's", E->s->row_parts);
    line(E, 1, "// row and part come from a ticket taken at its start, so a block waits only for its row's other parts, "
         "which the GPU holds at once");
    line(E, 1, "const int %s = (int)(gridDim.x / (unsigned int)((%s) > 1 ? (%s) : 1));   // the launch's parts a row "
         "(fewer for short rows)", E->np, guard_hi, guard_hi);
    const char *u = take_ticket(E, guard_hi);
    line(E, 1, "const int %s = (int)(%s %% (unsigned int)%s);", E->part, u, E->np);
    line(E, 1, "int %s = (int)(%s / (unsigned int)%s);", row, u, E->np);
    line(E, 1, "int %s = threadIdx.x;", E->lane);
    line(E, 1, "if (%s >= %s) return;   // the row's blocks all return", row, guard_hi);
  } else if (E->split) {
    int P = E->s->row_parts, R = E->nred, L = 2;
    E->stage = fresh(E, "kr_stage");
    line(E, 1, "// split_rows: each row over %d blocks; a block's reduction (stage) and part come from a ticket taken "
         "at its start,", P);
    line(E, 1, "// ordered so that a block waits only for blocks that took earlier tickets (so all started): stage s "
         "of row r after stage s - 1 of row r + %d", L - 1);
    const char *u = take_ticket(E, guard_hi);
    line(E, 1, "const int %s = (int)(%s %% %d), %s = %d - (int)(%s / %d %% %d);", E->part, u, P, E->stage, R, u, P, R + 1);
    line(E, 1, "int %s = (int)(%s / %d / %d) - %s * %d;", row, u, P, R + 1, E->stage, L);
    line(E, 1, "int %s = threadIdx.x;", E->lane);
    line(E, 1, "if (%s < 0 || %s >= %s) return;", row, row, guard_hi);
  } else {
    switch (E->lay) {
    case KR_LAYOUT_BLOCK:
      line(E, 1, "int %s = blockIdx.x;", row);
      line(E, 1, "int %s = threadIdx.x;", E->lane);
      if (guard_hi) line(E, 1, "if (%s >= %s) return;", row, guard_hi);
      break;
    case KR_LAYOUT_WARP:
      line(E, 1, "int %s = blockIdx.x * %d + threadIdx.x / 32;", row, E->warps);
      line(E, 1, "int %s = threadIdx.x %% 32;", E->lane);
      line(E, 1, "if (%s >= %s) return;   // a whole warp: its row is past the last", row, guard_hi);
      break;
    default:
      line(E, 1, "int %s = blockIdx.x * 32 + threadIdx.x;", row);
      line(E, 1, "int %s = threadIdx.y;", E->lane);
      line(E, 1, "const bool %s = %s < %s;", E->live, row, guard_hi);
      line(E, 1, "if (%s <= 0) return;", guard_hi);
      line(E, 1, "if (!%s) %s = %s - 1;   // past the last row: recompute the last one, store nothing", E->live, row, guard_hi);
      break;
    }
  }
  bool hoisted_s = false;
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *it = &r->items.data[i];
    if (it->kind == KR_ROW_STMT) {
      if (E->online && it->acc == E->on.s && hoisted_s) continue;
      if (it->store) {
        line(E, 1, "if (%s) {", E->leader);
        stmt(E, 2, it->node);
        line(E, 1, "}");
        if (read_later(E, i)) barrier(E, 1);   /* one thread stored what the row's threads read next */
      } else if (it->text) {   /* the row nest wrote it (the element form's accumulator) */
        line(E, 1, "%s", it->text);
      } else {
        stmt(E, 1, it->node);
      }
      continue;
    }
    if (E->online && (int)i == E->on.l2) continue;
    if (E->welford && (int)i == E->wf.l2) {
      const KrRowAcc *qa = &r->accs.data[E->wf.sq];
      const Red *rd = &reds[E->wf.l1];
      const char *n = rd->g[0].st[0].name, *mean = rd->g[0].st[1].name, *m2 = rd->g[0].st[2].name;
      line(E, 1, "// welford: the squared deviations from %s, from the one sweep's mean and M2", E->wf.mean);
      line(E, 1, "%s += %s + (%s)%s * (%s - (%s - %s)) * (%s - (%s - %s));", qa->name, m2, qa->type, n, mean, E->wf.mean,
           E->shift, mean, E->wf.mean, E->shift);
      continue;
    }
    if (!it->accs.len) {   /* a map */
      if (E->split && !E->cluster && !E->resident) {
        line(E, 1, "{");
        sweep(E, 2, it, elem_body, NULL);
        line(E, 1, "}");
      } else if (E->lay == KR_LAYOUT_COLUMN) {   /* a thread past the last row stores nothing */
        line(E, 1, "if (%s) {", E->live);
        line(E, 2, "#pragma unroll 4");
        loop_head(E, 2, it);
        loop_body(E, 3, it);
        line(E, 2, "}");
        line(E, 1, "}");
      } else {
        E->unroll = true;
        sweep(E, 1, it, elem_body, NULL);
        E->unroll = false;
      }
      if (it->writes.len && read_later(E, i)) barrier(E, 1);
      continue;
    }
    Red *rd = &reds[i];
    red_pre(E, i, rd, &hoisted_s);
    if (E->cluster) {
      red_sweep(E, 1, i, rd);
      if (E->push) {
        exchange_push(E, rd);
      } else {
        exchange(E, rd);
        if ((E->left = rd->q == E->nred - 1))   /* no block reads another's shared memory past here */
          line(E, 1, "%s.barrier_arrive();   // split_rows: done with the other blocks' shared memory (waited for at the end)",
               E->cl);
      }
    } else if (E->resident) {
      red_sweep(E, 1, i, rd);
      publish(E, 1, rd, false);
      gather(E, rd);
    } else if (E->split) {
      line(E, 1, "if (%s == %d) {   // split_rows: this block's part of the row's reduction %d", E->stage, rd->q, rd->q);
      red_sweep(E, 2, i, rd);
      publish(E, 2, rd, true);
      line(E, 1, "}");
      gather(E, rd);
    } else {
      red_sweep(E, 1, i, rd);
    }
    red_post(E, i, rd);
  }
  if (E->cluster && E->push)
    ;   /* nothing to wait for: no block reads another's shared memory */
  else if (E->cluster && E->left)
    line(E, 1, "%s.barrier_wait();   // split_rows: no block leaves while another may still read its shared memory", E->cl);
  else if (E->cluster)
    line(E, 1, "%s.sync();   // split_rows: no block leaves while another may still read its shared memory", E->cl);
}

/* ---- row_cache ------------------------------------------------------------------------------------ */

/* Loop item i is walked by sweep() (the others are fused away or walked by welford's batches). */
static bool plain_sweep(const Em *E, size_t i) {
  if (E->r->items.data[i].kind != KR_ROW_LOOP) return false;
  if (E->online && (int)i == E->on.l2) return false;
  return !(E->welford && ((int)i == E->wf.l1 || (int)i == E->wf.l2));
}

static bool stores_into(Em *E, size_t i, const char *array) {
  const KrRowItem *it = &E->r->items.data[i];
  Names w = {0};
  if (it->kind == KR_ROW_LOOP)
    for (size_t k = 0; k < it->writes.len; k++) kr_vec_push(E->a, &w, it->writes.data[k]);
  else stores_of(E->t, it->node, E->a, &w);
  for (size_t k = 0; k < w.len; k++)
    if (!strcmp(w.data[k], array)) return true;
  return false;
}

/* Identifiers assigned in `n` (assignments, ++/--, declarations). */
static void assigned_names(const KrTree *t, TSNode n, KrArena *a, Names *out) {
  TSNode target = {0};
  if (is(t, n, t->sym.assignment_expression)) target = kr_node_field(n, "left");
  else if (is(t, n, t->sym.update_expression)) target = kr_node_field(n, "argument");
  if (!ts_node_is_null(target) && is(t, target, t->sym.identifier)) kr_vec_push(a, out, kr_node_text(t, target, a));
  if (is(t, n, t->sym.declaration)) body_names(t, n, a, out);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) assigned_names(t, ts_node_named_child(n, i), a, out);
}

static void identifiers(const KrTree *t, TSNode n, KrArena *a, Names *out) {
  if (is(t, n, t->sym.identifier)) kr_vec_push(a, out, kr_node_text(t, n, a));
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) identifiers(t, ts_node_named_child(n, i), a, out);
}

static bool named(const Names *ns, const char *name) {
  for (size_t i = 0; i < ns->len; i++)
    if (!strcmp(ns->data[i], name)) return true;
  return false;
}

/* The kept access (c_array[c_index]) inside `n`, not counting the insides of calls of text `in`. */
static bool kept_outside(Em *E, TSNode n, const char *in) {
  const KrTree *t = E->t;
  if (in && is(t, n, t->sym.call_expression) && !strcmp(kr_node_text_flat(t, n, E->a), in)) return false;
  if (is(t, n, t->sym.subscript_expression) &&
      !strcmp(kr_node_text_flat(t, kr_node_field(n, "argument"), E->a), E->c_array) &&
      !strcmp(kr_node_text_flat(t, ts_node_named_child(kr_node_field(n, "indices"), 0), E->a), E->c_index))
    return true;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    if (kept_outside(E, ts_node_named_child(n, i), in)) return true;
  return false;
}

/* row_cache's derived value (Em's d_*): the kept element is float; exactly two later sweeps take it
 * from the cache; the first computes a call of a float math function of it (`expf(x[j] - rowmax)`)
 * whose other names nothing from the first sweep to the second assigns, and the second reads the
 * element only inside that same call. Then the first sweep keeps the call's value in place of the
 * element and the second reads it: one evaluation of the call per element instead of two, the same
 * bits (the same call of the same values). */
static void derived_plan(Em *E) {
  static const char *const fns[] = {"expf", "exp2f", "expm1f", "logf", "log2f", "log1pf", "sqrtf", "rsqrtf",
                                    "tanhf", "sinf", "cosf", "erff", "fabsf", "__expf", "__logf"};
  const KrRows *r = E->r;
  const KrTree *t = E->t;
  E->d_a = E->d_b = -1;
  if (strcmp(E->c_elem, "float") != 0) return;
  int users[3], nu = 0;
  for (size_t i = (size_t)E->c_keeper + 1; i < r->items.len && nu < 3; i++) {
    Vec v;
    if (!plain_sweep(E, i) || !same_range(&r->items.data[E->c_keeper], &r->items.data[i]) ||
        !vec_scan(E, &r->items.data[i], &v) || v.V != E->c_V || !has_cached(&v))
      continue;
    users[nu++] = (int)i;
  }
  if (nu != 2) return;
  const KrRowItem *A = &r->items.data[users[0]], *B = &r->items.data[users[1]];
  Names set = {0};
  for (int i = users[0]; i <= users[1]; i++) {
    const KrRowItem *it = &r->items.data[i];
    assigned_names(t, it->kind == KR_ROW_LOOP ? it->body : it->node, E->a, &set);
    if (it->kind == KR_ROW_LOOP) {
      kr_vec_push(E->a, &set, it->var);
      for (size_t k = 0; k < it->accs.len; k++) kr_vec_push(E->a, &set, r->accs.data[it->accs.data[k]].name);
    }
  }
  Subs calls = {0};
  calls_in(t, A->body, NULL, E->a, &calls);
  for (size_t c = 0; c < calls.len; c++) {
    TSNode call = calls.data[c];
    const char *fn = kr_node_text_flat(t, kr_node_field(call, "function"), E->a);
    bool known = false;
    for (size_t k = 0; k < sizeof fns / sizeof *fns; k++) known |= !strcmp(fn, fns[k]);
    if (!known || !kept_outside(E, call, NULL)) continue;
    /* Its names: the function, the kept access's (array and index, the loop's j among them) and
     * names nothing assigns between the two sweeps. */
    Names ids = {0}, allowed = {0};
    identifiers(t, kr_node_field(call, "arguments"), E->a, &ids);
    Subs subs = {0};
    subscripts(t, call, E->a, &subs);
    for (size_t k = 0; k < subs.len; k++)
      if (!strcmp(kr_node_text_flat(t, kr_node_field(subs.data[k], "argument"), E->a), E->c_array))
        identifiers(t, subs.data[k], E->a, &allowed);
    bool ok = true;
    for (size_t k = 0; k < ids.len && ok; k++) ok = named(&allowed, ids.data[k]) || !named(&set, ids.data[k]);
    for (size_t k = 0; k < subs.len && ok; k++)   /* other arrays' elements may change between the sweeps */
      ok = !strcmp(kr_node_text_flat(t, kr_node_field(subs.data[k], "argument"), E->a), E->c_array);
    const char *text = kr_node_text_flat(t, call, E->a);
    Subs inb = {0};
    calls_in(t, B->body, text, E->a, &inb);
    if (!ok || !inb.len || kept_outside(E, B->body, text)) continue;
    E->d_text = text, E->d_a = users[0], E->d_b = users[1];
    return;
  }
}

/* row_cache: the first load a sweep takes by 16-byte steps that a later sweep over the same range
 * takes again, with the same V and no store into its array in between. */
/* Whether loop item k is a sweep over item i's range, by the same V elements a step, that loads x
 * (an access of i's scan v) at the same index. */
static bool loads_again(Em *E, size_t i, const Vec *v, const VAcc *x, size_t k) {
  const KrRows *r = E->r;
  Vec w;
  if (!plain_sweep(E, k) || !same_range(&r->items.data[i], &r->items.data[k]) || !vec_scan(E, &r->items.data[k], &w) ||
      w.V != v->V)
    return false;
  for (int b = 0; b < w.n; b++)
    if (!w.acc[b].store && !strcmp(w.acc[b].array, x->array) && !strcmp(w.acc[b].index, x->index)) return true;
  return false;
}

/* The line (1-based) where loop item i starts, in the text the row nest was lifted from (the
 * kernel before its first schedule pass). */
static unsigned line_at(Em *E, size_t i) {
  return ts_node_start_point(E->r->items.data[i].node).row + 1;
}

static const char *cache_plan(Em *E) {
  const KrRows *r = E->r;
  if (E->split && !E->cluster && !E->resident)
    return "split_rows' stages run in different blocks (with cluster = true or resident = true they do not)";
  if (E->lay != KR_LAYOUT_BLOCK) return "it keeps the row of a block (block_reduce's row layout)";
  if (!E->s->row_vector) return "it keeps the 16-byte steps of the row (vector = true)";
  const char *stale = NULL;   /* a later sweep loads the row again, but a store into it comes first */
  for (size_t i = 0; i < r->items.len; i++) {
    Vec v;
    if (!plain_sweep(E, i) || !vec_scan(E, &r->items.data[i], &v)) continue;
    for (int a = 0; a < v.n; a++) {
      const VAcc *x = &v.acc[a];
      if (x->store) continue;
      size_t k = i + 1;
      for (; k < r->items.len && !stores_into(E, k, x->array); k++)
        if (loads_again(E, i, &v, x, k)) {
          E->c_array = x->array, E->c_index = x->index, E->c_elem = x->elem, E->c_size = x->size;
          E->c_keeper = (int)i, E->c_V = v.V;
          return NULL;
        }
      for (size_t later = k + 1; !stale && k < r->items.len && later < r->items.len; later++)
        if (loads_again(E, i, &v, x, later))
          stale = kr_arena_printf(E->a, "the sweep at line %u loads '%s' again after the one at line %u, but the %s at "
                                        "line %u stores into '%s' in between, so the row kept on chip would be stale "
                                        "(lines of the text before the kernel's first schedule pass)",
                                  line_at(E, later), x->array, line_at(E, i),
                                  r->items.data[k].kind == KR_ROW_LOOP ? "loop" : "statement", line_at(E, k), x->array);
    }
  }
  return stale ? stale : "no sweep loads by 16-byte steps what a later sweep over the same range loads again";
}

/* row_cache's dynamic shared memory: what the kept row needs past the registers' steps (a row of
 * PARTS parts: one part, in whole warps' worth as slice() cuts it), up to SHARED KiB; SHARED KiB when
 * the row's length is not an expression of the kernel's parameters. */
/* The length of loop item i's range as an expression over the launch's parameters (`param.N`), when
 * it starts at 0 and its bound is one; else NULL. */
static const char *range_expr(Em *E, const KrRowItem *it) {
  bool ok = true;
  const char *len = !strcmp(it->lo, "0") && !ts_node_is_null(it->hi_node)
                        ? kr_schedule_launch_expr(E->t, E->r->kernel, E->lx, it->hi_node, E->a, &ok) : NULL;
  return ok ? len : NULL;
}

/* row_cache's dynamic shared memory (`parts`: a row's parts as a launch expression, "1" unsplit). */
static const char *cache_shmem(Em *E, const char *parts) {
  int reg_span = E->c_steps * E->per * E->c_V;
  const char *len = range_expr(E, &E->r->items.data[E->c_keeper]);
  if (!len) return kr_arena_printf(E->a, "%d", E->c_cap * E->c_size);
  bool split = strcmp(parts, "1") != 0;
  if (split) len = kr_arena_printf(E->a, "((%s) + %s - 1) / %s + 31) / 32 * 32", len, parts, parts);
  return kr_arena_printf(E->a, "max(0, min((%s%s) - %d, %d)) * %d", split ? "(" : "", len, reg_span, E->c_cap, E->c_size);
}

/* split_rows with resident: the parts a row gets at launch, PARTS or fewer for a short row (a part
 * of at least 16 elements a thread, four 16-byte steps of floats), from the first reduction's range
 * when the launch can compute it. */
static const char *resident_parts(Em *E) {
  const KrRows *r = E->r;
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *it = &r->items.data[i];
    if (it->kind != KR_ROW_LOOP || !it->accs.len) continue;
    const char *len = range_expr(E, it);
    if (!len) break;
    return kr_arena_printf(E->a, "min(%d, max(1, cdiv(%s, %d)))", E->s->row_parts, len, 16 * E->T);
  }
  return kr_arena_printf(E->a, "%d", E->s->row_parts);
}

/* Appends `decl` (", int n = 0") after the kernel's last parameter unless a parameter `name` is
 * there already: a later reduction pass regenerates the body of a kernel an earlier one extended. */
static void trailing_param(KrPassCtx *cx, const char *name, const char *decl) {
  for (size_t i = 0; i < cx->kernel->params.len; i++)
    if (!strcmp(cx->kernel->params.data[i].name, name)) return;
  const KrParam *lastp = &cx->kernel->params.data[cx->kernel->params.len - 1];
  kr_pass_replace(cx, ts_node_end_byte(lastp->node), ts_node_end_byte(lastp->node), decl);
}

/* The element form: its rows are the original launch's blocks, gridDim.x of them with blockDim.x
 * elements, which the new launch no longer says; the kernel takes both as trailing int
 * parameters (defaulted, so that the file's own launches still compile; once, when a second
 * reduction pass rewrites the kernel again), the launch change gives them. */
static void launch_values(Em *E) {
  KrPassCtx *cx = E->cx;
  const KrRows *r = E->r;
  trailing_param(cx, r->row_count, kr_arena_printf(E->a, ", int %s = 0, int %s = 0", r->row_count, r->block_size));
  cx->launch.args = "grid.x; block.x";
  kr_pass_assume(cx, "%s: the kernel is launched with the original launch's gridDim.x and blockDim.x as its trailing "
                 "arguments '%s' and '%s' (the launch change's args): its rows are the original's blocks",
                 cx->pass->name, r->row_count, r->block_size);
}

KrStatus kr_reduction_emit(KrPassCtx *cx) {
  const KrRows *r = cx->rows;
  const KrSchedule *s = cx->schedule;
  Em E = {.cx = cx, .r = r, .t = cx->nest_tree, .s = s, .a = cx->arena, .lay = s->layout, .T = s->threads};
  if (r->items.len > 64) return kr_pass_skip(cx, kr_reduction_at(cx, r->at), "%s: more than 64 statements in the row's work", cx->pass->name);
  E.lx = kr_loops_new(E.t, r->kernel, E.a);
  E.unit = kr_schedule_indent_unit(E.t, r->kernel);
  E.nl = strstr(E.t->src->text, "\r\n") ? "\r\n" : "\n";
  kr_vec_push(E.a, &E.taken, r->row);
  if (r->elements) {   /* the names the lift made up */
    kr_vec_push(E.a, &E.taken, r->block_size);
    kr_vec_push(E.a, &E.taken, r->row_count);
    for (size_t i = 0; i < r->accs.len; i++) kr_vec_push(E.a, &E.taken, r->accs.data[i].name);
  }
  E.lane = fresh(&E, "kr_lane"), E.off = fresh(&E, "kr_offset"), E.w = fresh(&E, "kr_warp"), E.live = fresh(&E, "kr_live");
  E.warps = E.T / 32;
  E.per = E.lay == KR_LAYOUT_BLOCK ? E.T : E.lay == KR_LAYOUT_WARP ? 32 : E.T / 32;
  E.leader = E.lay == KR_LAYOUT_COLUMN ? kr_arena_printf(E.a, "%s && threadIdx.y == 0", E.live)
                                       : kr_arena_printf(E.a, "%s == 0", E.lane);
  uint32_t at;
  if (s->online) {
    const char *why = online_of(r, E.t, &E.on, &at, E.a);
    if (why) return kr_pass_skip(cx, kr_reduction_at(cx, at), "online_softmax: %s", why);
    E.online = true;
  }
  if (s->welford) {
    const char *why = welford_of(r, E.t, &E.wf, &at, E.a);
    if (why) return kr_pass_skip(cx, kr_reduction_at(cx, at), "welford: %s", why);
    E.welford = true;
  }
  if (s->row_parts > 1) {
    const char *why = kr_reduction_split_why(cx);
    if (why) return kr_pass_skip(cx, kr_reduction_at(cx, r->at), "split_rows: %s", why);
    E.split = true;
    E.cluster = s->row_cluster;
    E.resident = s->row_resident && !E.cluster;
    E.ws = fresh(&E, "workspace");
    E.np = E.resident ? fresh(&E, "kr_parts") : kr_arena_printf(E.a, "%d", s->row_parts);
    E.leader = kr_arena_printf(E.a, "%s == 0 && %s == 0", E.part = fresh(&E, "kr_part"), E.lane);
  }
  if (s->row_cache) {
    const char *why = cache_plan(&E);
    if (why) return kr_pass_skip(cx, kr_reduction_at(cx, r->at), "row_cache: %s", why);
    E.c_steps = s->cache_steps;
    E.c_cap = s->cache_shared * 1024 / E.c_size / E.c_V * E.c_V;
    E.c_regs = fresh(&E, "kr_row"), E.c_smem = fresh(&E, "kr_row_shared"), E.c_fits = fresh(&E, "kr_row_fits");
    derived_plan(&E);
    if (E.d_text) E.d_flag = fresh(&E, "kr_row_derived"), E.d_keep = fresh(&E, "kr_derived");
  }
  if (r->block_const)
    kr_pass_assume(cx, "%s: the original is launched with blocks of %s threads, the block size its row loops step by "
                   "and its tree halves from (the rewrite walks each row whatever the block)", cx->pass->name, r->block_const);
  if (E.lay != KR_LAYOUT_BLOCK && !r->guard && !r->single && !r->elements)
    return kr_pass_skip(cx, kr_reduction_at(cx, ts_node_start_byte(r->row_decl)), "%s: the row has no guard (row < rows) to size the grid by",
                        cx->pass->name);
  KrBuf o = {0};
  E.o = &o;
  kr_buf_printf(&o, "{%s", E.nl);
  const char *what = E.split ? kr_arena_printf(E.a, "each row over %d blocks of %d threads", s->row_parts, E.T)
                   : E.lay == KR_LAYOUT_BLOCK ? kr_arena_printf(E.a, "one block of %d threads per row", E.T)
                   : E.lay == KR_LAYOUT_WARP ? kr_arena_printf(E.a, "one warp per row, %d row%s per block", E.warps,
                                                               E.warps == 1 ? "" : "s")
                                             : kr_arena_printf(E.a, "32 rows per block on threadIdx.x, each row's elements "
                                                               "over %d threads on threadIdx.y", E.per);
  line(&E, 1, "// krewrite %s: %s; each row loop strided over the row's threads", cx->pass->name, what);
  for (size_t i = 0; i < r->uniform.len; i++) stmt(&E, 1, r->uniform.data[i]);
  if (E.c_array) {
    const char *dyn = fresh(&E, "kr_dynamic_shared");
    line(&E, 1, "// row_cache: %s's row on chip, each thread's first %d steps of %d in registers, the next %d elements in "
         "shared memory", E.c_array, E.c_steps, E.c_V, E.c_cap);
    line(&E, 1, "%s %s[%d][%d];", E.c_elem, E.c_regs, E.c_steps > 0 ? E.c_steps : 1, E.c_V);
    line(&E, 1, "extern __shared__ __align__(16) unsigned char %s[];", dyn);
    line(&E, 1, "%s *%s = reinterpret_cast<%s *>(%s);", E.c_elem, E.c_smem, E.c_elem, dyn);
  }
  emit_items(&E);
  kr_buf_puts(&o, "}");
  kr_pass_replace_node(cx, cx->kernel->body, o.data);
  kr_buf_free(&o);
  /* The launch. */
  bool ok = true;
  const char *rows = r->single ? "1" : r->elements ? "grid.x"
                   : r->guard ? kr_schedule_launch_expr(E.t, r->kernel, E.lx, r->guard_hi, E.a, &ok) : NULL;
  if (r->guard && !ok && E.lay != KR_LAYOUT_BLOCK)
    return kr_pass_skip(cx, kr_reduction_at(cx, ts_node_start_byte(r->guard_hi)), "%s: the row count '%s' is not an expression of the kernel's "
                        "parameters and constants, so the new grid cannot be computed", cx->pass->name, r->guard);
  const char *bounds = kr_arena_printf(E.a, "__launch_bounds__(%d)", E.T);
  const char *dims = E.cluster ? kr_arena_printf(E.a, "__cluster_dims__(%d, 1, 1)", s->row_parts) : NULL;
  if (!kr_schedule_set_cluster(cx, dims) && dims) bounds = kr_arena_printf(E.a, "%s %s", dims, bounds);
  kr_schedule_set_bounds(cx, bounds);
  if (E.cluster && !strstr(cx->src->text, "cooperative_groups.h")) kr_pass_replace(cx, 0, 0, "#include <cooperative_groups.h>\n");
  if (E.async && !strstr(cx->src->text, "cuda_pipeline")) kr_pass_replace(cx, 0, 0, "#include <cuda_pipeline.h>\n");
  if (E.push && !strstr(cx->src->text, "#define KR_CLUSTER_PUSH")) {
    uint32_t head = ts_node_start_byte(cx->kernel->node);
    kr_pass_replace(cx, head, head, cluster_push_helpers);
  }
  if (E.cluster) {
    cx->launch.block = kr_arena_printf(E.a, "dim3(%d, 1, 1)", E.T);
    cx->launch.grid = kr_arena_printf(E.a, "dim3((%s) * %d, 1, 1)", rows, s->row_parts);
    cx->launch.shmem = E.c_array ? cache_shmem(&E, kr_arena_printf(E.a, "%d", s->row_parts)) : "0";
    kr_pass_assume(cx, "split_rows: a row's %d blocks run as one thread block cluster (sm_90), in which they exchange "
                   "partial states through distributed shared memory", s->row_parts);
    if (E.c_array)
      kr_pass_assume(cx, "row_cache: '%s' is not written while its row is kept on chip (no other pointer argument of the "
                     "launch aliases it)", E.c_array);
    kr_pass_assume(cx, "%s: the row's elements are combined in a different order (a sum is reassociated; max, min and "
                   "arg-max are unchanged)", cx->pass->name);
    return KR_OK;
  }
  if (E.resident) {
    int P = s->row_parts, R = E.nred;
    const char *parts = resident_parts(&E);
    cx->launch.block = kr_arena_printf(E.a, "dim3(%d, 1, 1)", E.T);
    cx->launch.grid = kr_arena_printf(E.a, "dim3(max(%s, 1) * %s, 1, 1)", rows, parts);
    cx->launch.shmem = E.c_array ? cache_shmem(&E, parts) : "0";
    cx->launch.workspace = kr_arena_printf(E.a, "(%s) * %d + (2 * (%s) * %d + 1) * 4", rows, R * P * E.nslots * 8, rows, R);
    trailing_param(cx, E.ws, kr_arena_printf(E.a, ", unsigned char *%s = nullptr", E.ws));
    kr_pass_assume(cx, "split_rows: the kernel is launched with a zeroed workspace of the launch change's size as its "
                       "argument '%s', used by one launch at a time; the GPU runs a row's blocks (up to %d) at once, since "
                       "they wait for each other", E.ws, P);
    if (E.c_array)
      kr_pass_assume(cx, "row_cache: '%s' is not written while its row is kept on chip (no other pointer argument of the "
                     "launch aliases it)", E.c_array);
    kr_pass_assume(cx, "%s: the row's elements are combined in a different order (a sum is reassociated; max, min and "
                   "arg-max are unchanged)", cx->pass->name);
    return KR_OK;
  }
  if (E.split) {
    int P = s->row_parts, R = E.nred;
    cx->launch.block = kr_arena_printf(E.a, "dim3(%d, 1, 1)", E.T);
    cx->launch.grid = kr_arena_printf(E.a, "dim3(((%s) + %d) * %d * %d, 1, 1)", rows, 2 * R, R + 1, P);
    cx->launch.shmem = "0";
    cx->launch.workspace = kr_arena_printf(E.a, "(%s) * %d + (2 * (%s) * %d + 1) * 4", rows, R * P * E.nslots * 8, rows, R);
    trailing_param(cx, E.ws, kr_arena_printf(E.a, ", unsigned char *%s = nullptr", E.ws));   /* once (a fusion after it) */
    kr_pass_assume(cx, "split_rows: the kernel is launched with a zeroed workspace of the launch change's size as its "
                       "argument '%s', used by one launch at a time; blocks that took a ticket run to completion "
                       "(a block waits only for blocks with earlier tickets)", E.ws);
    kr_pass_assume(cx, "%s: the row's elements are combined in a different order (a sum is reassociated; max, min and "
                   "arg-max are unchanged)", cx->pass->name);
    return KR_OK;
  }
  switch (E.lay) {
  case KR_LAYOUT_BLOCK:
    cx->launch.block = kr_arena_printf(E.a, "dim3(%d, 1, 1)", E.T);
    /* A block-per-row original already launches a block per row (on y: its grid.y); else one per row of the guard. */
    if (r->map == KR_ROWS_BLOCK && (!rows || !ok))
      cx->launch.grid = r->row_y ? "dim3(grid.y, 1, 1)" : "dim3(grid.x, grid.y, grid.z)";
    else
      cx->launch.grid = kr_arena_printf(E.a, "dim3(%s, 1, 1)", rows);
    if (r->map == KR_ROWS_THREAD && !rows)
      return kr_pass_skip(cx, kr_reduction_at(cx, ts_node_start_byte(r->row_decl)), "%s: the row has no guard (row < rows) to size the grid "
                          "by", cx->pass->name);
    if (r->map == KR_ROWS_THREAD && !ok)
      return kr_pass_skip(cx, kr_reduction_at(cx, ts_node_start_byte(r->row_decl)), "%s: the row count is not an expression of the kernel's "
                          "parameters and constants", cx->pass->name);
    break;
  case KR_LAYOUT_WARP:
    cx->launch.block = kr_arena_printf(E.a, "dim3(%d, 1, 1)", E.T);
    cx->launch.grid = kr_arena_printf(E.a, "dim3(cdiv(%s, %d), 1, 1)", rows, E.warps);
    break;
  default:
    cx->launch.block = kr_arena_printf(E.a, "dim3(32, %d, 1)", E.per);
    cx->launch.grid = kr_arena_printf(E.a, "dim3(cdiv(%s, 32), 1, 1)", rows);
    break;
  }
  cx->launch.shmem = "0";
  if (E.c_array) {
    cx->launch.shmem = cache_shmem(&E, "1");
    kr_pass_assume(cx, "row_cache: '%s' is not written while its row is kept on chip (no other pointer argument of the "
                   "launch aliases it)", E.c_array);
  }
  if (r->elements) launch_values(&E);
  kr_pass_assume(cx, "%s: the row's elements are combined in a different order (a sum is reassociated; max, min "
                 "and arg-max are unchanged)", cx->pass->name);
  if (E.online) kr_pass_assume(cx, "online_softmax: the row's values are finite (an infinity or NaN may change which "
                                   "outputs are NaN)");
  return KR_OK;
}
