/* passes/schedule.c: the contraction schedule's checks and its emitter (schedule.h).
 *
 * The emitted kernel, for a nest `out[m, n] = epilogue(acc ⊕= f(A[m, k], B[k, n], …))`:
 *
 *     constexpr tile sizes                         (tile, register_tile)
 *     __shared__ tiles of the staged operands      (tile: A_s[stages][BK][BM + pad], …)
 *     acc[TM][TN] = the identity of ⊕
 *     for each k tile: cooperative guarded loads of the staged tiles (cp.async when double
 *       buffered), a barrier, the update spliced from the original with staged reads replaced
 *       by register copies of the tile, a barrier
 *     (split_k: the k loop walks part blockIdx.z's run of k tiles; after it, each block leaves acc
 *       in the workspace and the last block of the tile to arrive adds the parts up in order)
 *     per output: the original guard, prologue, the combine of acc into the accumulator, the
 *       original epilogue
 *
 * Emission works on text: the original statements are re-used with substitutions (an
 * identifier or a subscript replaced by new text), so the emitted kernel computes the same
 * expressions in the same types. Guards are written once per place they are needed: a staged load
 * is guarded by the per-axis guards of the axes in its index and the loop bounds, so tiles at the
 * edges hold zeros (or, when a zero would change the result, the inner loop is guarded too); the
 * store is guarded by the kernel's own guard.
 *
 * A nest without a reduction is data movement: a transpose's staged array goes through a padded
 * tile loaded in its stored order (emit_movement); a stencil's, read at constant offsets around the
 * output point, through a tile with its halo loaded once per block and guarded by the box of rows
 * and columns the reads reach, taken from where each read is evaluated (emit_halo). */
#include "passes/schedule.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/affine.h"
#include "frontend/loops.h"
#include "frontend/uniform.h"
#include "passes/pass.h"
#include "passes/window.h"

/* ---- Roles and checks ---------------------------------------------------------------------------- */

static bool reads_axis(const KrNestForm *f, int axis) {
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var == axis) return true;
  return false;
}

/* True when `f` reads an axis of the role's group. */
static bool reads_role(const KrNestForm *f, const KrContraction *c, int role) {
  for (int i = 0; i < c->ngroup[role]; i++)
    if (reads_axis(f, c->group[role][i])) return true;
  return false;
}

static bool roles(const KrNest *n, KrContraction *c, const char **why, KrArena *a);
static bool implicit_roles(const KrNest *n, KrContraction *c, const char **why, KrArena *a);
static const char *split_check(const KrSchedule *s, const KrNest *n, KrArena *a);

bool kr_contraction_of(const KrNest *n, KrContraction *c, const char **why, KrArena *a) {
  if (n->reduce < 0) return *why = "the nest has no reduction loop", false;
  return roles(n, c, why, a);
}

bool kr_movement_of(const KrNest *n, KrContraction *c, const char **why, KrArena *a) {
  if (n->reduce >= 0) return *why = "the nest has a reduction loop", false;
  return roles(n, c, why, a);
}

bool kr_tileable(const KrNest *n, KrContraction *c, const char **why, KrArena *a) {
  return n->reduce >= 0 ? kr_contraction_of(n, c, why, a) : kr_movement_of(n, c, why, a);
}

bool kr_schedule_roles(const KrNest *n, const KrSchedule *s, KrContraction *c, const char **why, KrArena *a) {
  return s && s->implicit ? implicit_roles(n, c, why, a) : kr_tileable(n, c, why, a);
}

static void single_groups(KrContraction *c) {
  c->group[0][0] = c->m, c->group[1][0] = c->n, c->group[2][0] = c->k;
  c->ngroup[0] = c->ngroup[1] = 1;
  c->ngroup[2] = c->k >= 0 ? 1 : 0;
}

/* How far out an axis's coefficient in `f` puts it: more symbols, then a larger integer, is further
 * out (`C * H * W` before `H * W` before `W` before 1). */
static int coef_outer_cmp(const KrNestForm *f, int x, int y) {
  const KrNestTerm *tx = NULL, *ty = NULL;
  for (size_t i = 0; i < f->terms.len; i++) {
    if (f->terms.data[i].var == x) tx = &f->terms.data[i];
    if (f->terms.data[i].var == y) ty = &f->terms.data[i];
  }
  int sx = tx ? tx->nsyms : -1, sy = ty ? ty->nsyms : -1;
  if (sx != sy) return sx > sy ? -1 : 1;
  long long cx = tx ? tx->coef : 0, cy = ty ? ty->coef : 0;
  return cx > cy ? -1 : cx < cy ? 1 : x - y;
}

static void order_group(int *g, int ng, const KrNestForm *f) {
  for (int i = 1; i < ng; i++)
    for (int j = i; j > 0 && coef_outer_cmp(f, g[j - 1], g[j]) > 0; j--) {
      int t = g[j];
      g[j] = g[j - 1], g[j - 1] = t;
    }
}

/* implicit_gemm's roles: a nest whose update multiplies two operands read in the loop, A (reading
 * the output's contiguous axis) and B, is the GEMM with m the parallel axes A reads, n those B
 * reads, k the reduction axes (a convolution: m = (n, p, q), n = (k), k = (c, r, s)). */
static bool implicit_roles(const KrNest *n, KrContraction *c, const char **why, KrArena *a) {
  memset(c, 0, sizeof *c);
  if (n->reduce < 0) return *why = "the nest has no reduction loop", false;
  c->out = -1;
  for (size_t i = 0; i < n->refs.len && c->out < 0; i++)
    if (n->refs.data[i].write && !n->refs.data[i].in_loop) c->out = (int)i;
  if (c->out < 0) return *why = "the nest writes no output outside its loop", false;
  for (size_t i = 0; i < n->axes.len; i++)
    if (n->axes.data[i].kind == KR_AXIS_REDUCE && strcmp(n->axes.data[i].lo, "0") != 0)
      return *why = kr_arena_printf(a, "the reduction loop over '%s' starts at %s, not 0", n->axes.data[i].name,
                                    n->axes.data[i].lo), false;
  /* The operands: the arrays read in the loop (the first read of each). */
  const KrNestRef *ops[2] = {0};
  int nops = 0;
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (!r->in_loop || r->write) continue;
    bool dup = false;
    for (int j = 0; j < nops; j++) dup |= strcmp(ops[j]->array, r->array) == 0;
    if (dup) continue;
    if (nops == 2) return *why = kr_arena_printf(a, "the loop reads three arrays ('%s', '%s', '%s'); a GEMM multiplies two",
                                                 ops[0]->array, ops[1]->array, r->array), false;
    ops[nops++] = r;
  }
  if (nops != 2) return *why = "the loop does not read two arrays (a GEMM multiplies two)", false;
  const KrNestForm *out = &n->refs.data[c->out].index;
  int ai = 0;
  for (size_t ax = 0; ax < n->axes.len; ax++)
    if (n->axes.data[ax].kind == KR_AXIS_PARALLEL && kr_nest_coef_is(out, (int)ax, 1) && reads_axis(&ops[1]->index, (int)ax))
      ai = 1;
  const KrNestRef *A = ops[ai], *B = ops[1 - ai];
  for (size_t ax = 0; ax < n->axes.len; ax++) {
    const KrNestAxis *x = &n->axes.data[ax];
    if (x->grid_stride) return *why = kr_arena_printf(a, "the axis '%s' is a grid-stride loop", x->name), false;
    int role = x->kind == KR_AXIS_REDUCE ? 2 : -1;
    if (role < 0) {
      bool ra = reads_axis(&A->index, (int)ax), rb = reads_axis(&B->index, (int)ax);
      if (ra && rb) return *why = kr_arena_printf(a, "both '%s' and '%s' change with '%s' (a batch axis); the GEMM view "
                                                     "takes axes of one operand each", A->array, B->array, x->name), false;
      if (!ra && !rb) return *why = kr_arena_printf(a, "neither '%s' nor '%s' changes with '%s'", A->array, B->array, x->name), false;
      role = ra ? 0 : 1;
    }
    if (c->ngroup[role] == KR_GROUP_MAX) return *why = "more axes than the GEMM view groups", false;
    c->group[role][c->ngroup[role]++] = (int)ax;
  }
  if (!c->ngroup[0] || !c->ngroup[1])
    return *why = kr_arena_printf(a, "'%s' and '%s' do not both change with an output axis", A->array, B->array), false;
  order_group(c->group[0], c->ngroup[0], out);
  order_group(c->group[1], c->ngroup[1], out);
  order_group(c->group[2], c->ngroup[2], &B->index);
  c->m = c->group[0][0], c->n = c->group[1][0], c->k = c->group[2][0];
  return true;
}

/* The single term of a coefficient, with the file's constants folded into its integer; NULL when the
 * coefficient is not one term. */
static bool one_term(const KrNest *n, const KrNestForm *f, int axis, KrNestTerm *out) {
  const KrNestTerm *t = NULL;
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var == axis) {
      if (t) return false;
      t = &f->terms.data[i];
    }
  if (!t) return false;
  *out = *t;
  int w = 0;
  for (int s = 0; s < t->nsyms; s++) {
    bool folded = false;
    for (size_t c = 0; c < n->consts.len && !folded; c++)
      if (strcmp(n->consts.data[c].name, t->syms[s]) == 0) out->coef *= n->consts.data[c].value, folded = true;
    if (!folded) out->syms[w++] = t->syms[s];
  }
  out->nsyms = w;
  return true;
}

/* Multiplies term `t` by an axis's extent when the extent is an integer, a constant of the file or one
 * symbol; false otherwise (or when the term has no room for another symbol). */
static bool times_extent(const KrNest *n, KrNestTerm *t, const char *extent) {
  char *end;
  long long v = strtoll(extent, &end, 10);
  if (*extent && !*end) return t->coef *= v, true;
  for (const char *p = extent; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_')) return false;
  for (size_t c = 0; c < n->consts.len; c++)
    if (strcmp(n->consts.data[c].name, extent) == 0) return t->coef *= n->consts.data[c].value, true;
  if (t->nsyms == KR_NEST_MAX_SYMS) return false;
  t->syms[t->nsyms++] = extent;
  return true;
}

static bool same_term(KrNestTerm x, KrNestTerm y) {
  if (x.coef != y.coef || x.nsyms != y.nsyms) return false;
  /* the symbols as multisets */
  bool used[KR_NEST_MAX_SYMS] = {0};
  for (int i = 0; i < x.nsyms; i++) {
    bool found = false;
    for (int j = 0; j < y.nsyms && !found; j++)
      if (!used[j] && strcmp(x.syms[i], y.syms[j]) == 0) used[j] = found = true;
    if (!found) return false;
  }
  return true;
}

/* implicit_gemm: true when `f` reads the reduction band through its flattened index, k_flat =
 * ((c * R) + r) * S + s: the coefficient of each band axis is the innermost's times the extents of the
 * axes inside it (the weights' c * R * S + r * S + s); then *coef is the innermost's coefficient, the
 * one of k_flat. A single reduction axis is its own flattening. */
static bool band_flat(const KrNest *n, const KrContraction *c, const KrNestForm *f, KrNestTerm *coef) {
  int ng = c->ngroup[2];
  if (ng < 1 || !one_term(n, f, c->group[2][ng - 1], coef)) return false;
  KrNestTerm want = *coef;
  for (int i = ng - 2; i >= 0; i--) {
    KrNestTerm have;
    if (!times_extent(n, &want, n->axes.data[c->group[2][i + 1]].hi) || !one_term(n, f, c->group[2][i], &have) ||
        !same_term(want, have))
      return false;
  }
  return true;
}

/* True when `f` is contiguous along the GEMM view's k: a coefficient of 1 along the reduction axis, or
 * along a band's flattened index. */
static bool k_unit(const KrNest *n, const KrContraction *c, const KrNestForm *f) {
  if (c->ngroup[2] <= 1) return kr_nest_coef_is(f, c->k, 1);
  KrNestTerm t;
  return band_flat(n, c, f, &t) && t.coef == 1 && t.nsyms == 0;
}

static bool roles(const KrNest *n, KrContraction *c, const char **why, KrArena *a) {
  if (n->nreduce > 1)
    return *why = kr_arena_printf(a, "the nest reduces over a band of %d loops (a convolution's); the tile schedule "
                                     "takes one reduction loop (implicit_gemm views a convolution as a GEMM)", n->nreduce),
           false;
  if (!ts_node_is_null(n->update_cond))
    return *why = "the accumulator's update is under a condition (a convolution's padding: implicit_gemm reads it)", false;
  for (size_t i = 0; i < n->axes.len; i++)
    if (n->axes.data[i].step)
      return *why = kr_arena_printf(a, "the flat index '%s' is split into more than two axes", n->axes.data[i].flat), false;
  int par[3], np = 0;
  for (size_t i = 0; i < n->axes.len; i++)
    if (n->axes.data[i].kind == KR_AXIS_PARALLEL && np < 3) par[np++] = (int)i;
  if (np != 2) return *why = kr_arena_printf(a, "the nest has %d parallel axes; the tile schedule tiles two", np), false;
  c->k = n->reduce;
  c->out = -1;
  /* n: the axis along which the output is contiguous; m: the other. */
  c->m = par[1], c->n = par[0];
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (!r->write || r->in_loop) continue;
    c->out = (int)i;
    if (kr_nest_coef_is(&r->index, par[1], 1)) c->m = par[0], c->n = par[1];
    else if (kr_nest_coef_is(&r->index, par[0], 1)) c->m = par[1], c->n = par[0];
    break;
  }
  if (c->out < 0 && n->acc_ref >= 0) {
    c->out = n->acc_ref;
    if (kr_nest_coef_is(&n->refs.data[c->out].index, par[1], 1)) c->m = par[0], c->n = par[1];
  }
  if (c->out < 0) return *why = "the nest writes no output", false;
  single_groups(c);
  return true;
}

/* What a staged operand's tile is indexed by. */
typedef enum { OP_M, OP_N, OP_K } OpKind;

/* The kind of tile one read of an operand in the loop needs; NULL, or why it cannot be staged. */
static const char *ref_kind(const KrNest *n, const KrContraction *c, const KrNestRef *r, OpKind *kind, KrArena *a) {
  bool m = reads_role(&r->index, c, 0), nn = reads_role(&r->index, c, 1), k = reads_role(&r->index, c, 2);
  if (!k) return kr_arena_printf(a, "'%s' does not change with '%s'; it needs no staging", r->array, n->axes.data[c->k].name);
  if (m && nn) return kr_arena_printf(a, "'%s' depends on both output axes; a tile of it is used by one output only", r->array);
  *kind = m ? OP_M : nn ? OP_N : OP_K;
  return NULL;
}

/* Checks that `name` can be staged: read in the loop, never written. */
static const char *operand_ok(const KrNest *n, const KrContraction *c, const char *name, KrArena *a) {
  bool read = false;
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (strcmp(r->array, name) != 0) continue;
    if (r->write) return kr_arena_printf(a, "'%s' is written by the kernel; a staged copy would go stale", name);
    if (!r->in_loop) continue;
    OpKind k;
    const char *why = ref_kind(n, c, r, &k, a);
    if (why) return why;
    read = true;
  }
  if (!read) return kr_arena_printf(a, "'%s' is not read in the reduction loop, so there is nothing to stage", name);
  return NULL;
}

static size_t elem_bytes(const KrNest *n, const char *array) {
  for (size_t i = 0; i < n->kernel->params.len; i++) {
    const KrParam *p = &n->kernel->params.data[i];
    if (strcmp(p->name, array) != 0) continue;
    if (strcmp(p->base, "double") == 0 || strcmp(p->base, "long long") == 0 || strcmp(p->base, "int64_t") == 0) return 8;
    if (strcmp(p->base, "half") == 0 || strcmp(p->base, "__half") == 0 || strcmp(p->base, "__nv_bfloat16") == 0) return 2;
    return 4;
  }
  return 4;
}

static bool staged(const KrSchedule *s, const char *array) {
  for (int i = 0; i < s->nstage; i++)
    if (strcmp(s->stage[i], array) == 0) return true;
  return false;
}

/* The first in-loop read of the same array at the same index as refs[i] (itself when it is the
 * first): reads at one index share one tile. */
static size_t first_same(const KrNest *n, size_t i, KrArena *a) {
  const KrNestRef *r = &n->refs.data[i];
  const char *f = kr_nest_form_text(n, &r->index, a);
  for (size_t j = 0; j < i; j++) {
    const KrNestRef *o = &n->refs.data[j];
    if (o->in_loop && !o->write && strcmp(o->array, r->array) == 0 && strcmp(kr_nest_form_text(n, &o->index, a), f) == 0)
      return j;
  }
  return i;
}

static void tile_dims(const KrSchedule *s, const KrNest *n, const KrContraction *c, const KrNestRef *r, OpKind kind,
                      size_t *rows, size_t *ld, size_t *elem);
static size_t mma_ctile_bytes(const KrSchedule *s);
static const char *mma_shape_check(const KrSchedule *s, KrArena *a);
static const char *wg_check(const KrSchedule *s, KrArena *a);
static const char *const mma_names[5];

/* api wgmma with 3xtf32: the residuals of the operand read from shared memory, two buffers of its
 * tile (rows: the product's columns, BM when transposed, else BN), on 1024 bytes. */
static size_t wg_lo_bytes(const KrSchedule *s) {
  if (!s->mma_wg || s->mma != KR_MMA_3XTF32) return 0;
  return 2 * (size_t)(s->wm == s->bm ? s->bm : s->bn) * (size_t)s->bk * 4;
}

/* The staged tiles' bytes; each starts on 128 bytes when they live in dynamic shared memory. A
 * tensor-core schedule needs at least its C tile (mma_ctile_bytes), which reuses the same memory. */
static size_t shared_bytes(const KrSchedule *s, const KrNest *n, const KrContraction *c, KrArena *a) {
  size_t total = 0;
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    OpKind k;
    if (!r->in_loop || r->write || !staged(s, r->array) || first_same(n, i, a) != i || ref_kind(n, c, r, &k, a)) continue;
    size_t rows, ld, elem;
    tile_dims(s, n, c, r, k, &rows, &ld, &elem);
    size_t bytes = (size_t)s->stages * rows * ld * elem;
    size_t align = s->mma_wg ? 1024 : 128;   /* wgmma's swizzle repeats every 1024 bytes of the address */
    total += s->mma ? (bytes + align - 1) / align * align : bytes;
  }
  if (s->mma && !s->mma_ptx && total < mma_ctile_bytes(s)) total = mma_ctile_bytes(s);
  return total + wg_lo_bytes(s);
}

/* Whether the tiles live in dynamic shared memory: beyond 48 KiB (static shared memory's limit),
 * and always under tensor_core (its C tile shares their memory). */
static bool shared_dynamic(const KrSchedule *s, size_t bytes) { return s->mma || bytes > 48 * 1024; }

/* ---- Halos: a stencil's reads around the output point -------------------------------------------- */

/* One staged array of a stencil: every read is the output point plus a constant offset (dm, dn),
 * contiguous along n, with the same row stride. The tile covers the block's outputs and the halo,
 * rows [m0 - lo_m, m0 + BM + hi_m) and columns [n0 - lo_n, n0 + BN + hi_n); box_* bound the rows
 * and columns the reads reach (the loads are guarded by them). */
typedef struct Halo {
  const char *array, *type, *stride, *tile, *vec_ok;
  int lo_m, hi_m, lo_n, hi_n;      /* the halo along each axis (lo_n, hi_n rounded up to 4 when vec) */
  const KrNestForm *box_lo[2], *box_hi[2];   /* [0]: m (rows), [1]: n (columns) */
  bool vec;
} Halo;

static KrNestForm *coef_form(const KrNestForm *f, int axis, KrArena *a) {
  KrNestForm *c = kr_arena_alloc(a, sizeof *c);
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var == axis) {
      KrNestTerm t = f->terms.data[i];
      t.var = -1;
      kr_vec_push(a, &c->terms, t);
    }
  return c;
}

/* f with the symbols the file fixes replaced by their values (not normalised). */
static KrNestForm *fold_consts(const KrNest *n, const KrNestForm *f, KrArena *a) {
  KrNestForm *g = kr_arena_alloc(a, sizeof *g);
  for (size_t i = 0; i < f->terms.len; i++) {
    KrNestTerm t = f->terms.data[i];
    int w = 0;
    for (int s = 0; s < t.nsyms; s++) {
      bool folded = false;
      for (size_t c = 0; c < n->consts.len && !folded; c++)
        if (strcmp(n->consts.data[c].name, t.syms[s]) == 0) t.coef *= n->consts.data[c].value, folded = true;
      if (!folded) t.syms[w++] = t.syms[s];
    }
    t.nsyms = w;
    kr_vec_push(a, &g->terms, t);
  }
  return g;
}

static long long const_of(const KrNestForm *f) {
  long long c = 0;
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var < 0 && f->terms.data[i].nsyms == 0) c += f->terms.data[i].coef;
  return c;
}

/* base = dm * stride + dn with integers dm and dn; false when the offset is not constant. */
static bool split_offset(const KrNestForm *base, const KrNestForm *stride, long long *dm, long long *dn) {
  const KrNestTerm *sym = NULL;
  for (size_t i = 0; i < stride->terms.len && !sym; i++)
    if (stride->terms.data[i].nsyms) sym = &stride->terms.data[i];
  if (!sym) {   /* a literal stride: the nearest row */
    long long s = const_of(stride), c = const_of(base);
    for (size_t i = 0; i < base->terms.len; i++)
      if (base->terms.data[i].nsyms) return false;
    if (s <= 0) return false;
    *dm = (c >= 0 ? c + s / 2 : c - s / 2) / s;
    *dn = c - *dm * s;
    return true;
  }
  long long k = 0;
  for (size_t i = 0; i < base->terms.len; i++) {
    const KrNestTerm *t = &base->terms.data[i];
    bool same = t->nsyms == sym->nsyms;
    for (int j = 0; same && j < t->nsyms; j++) same = strcmp(t->syms[j], sym->syms[j]) == 0;
    if (same) k += t->coef;
  }
  if (k % sym->coef) return false;
  *dm = k / sym->coef;
  /* What remains after dm rows must be a plain integer. */
  KrNestForm rest = {0};
  KrArena *a = kr_arena_new();
  for (size_t i = 0; i < base->terms.len; i++) kr_vec_push(a, &rest.terms, base->terms.data[i]);
  for (size_t i = 0; i < stride->terms.len; i++) {
    KrNestTerm t = stride->terms.data[i];
    t.coef *= -*dm;
    kr_vec_push(a, &rest.terms, t);
  }
  long long d = 0;
  bool ok = true;
  for (size_t i = 0; ok && i < rest.terms.len; i++) {   /* merge like terms by hand: rest is not normalised */
    const KrNestTerm *t = &rest.terms.data[i];
    if (t->nsyms == 0) { d += t->coef; continue; }
    long long sum = 0;
    for (size_t j = 0; j < rest.terms.len; j++) {
      const KrNestTerm *u = &rest.terms.data[j];
      bool same = u->nsyms == t->nsyms;
      for (int q = 0; same && q < t->nsyms; q++) same = strcmp(u->syms[q], t->syms[q]) == 0;
      if (same) sum += u->coef;
    }
    ok = sum == 0;
  }
  kr_arena_free(a);
  *dn = d;
  return ok;
}

/* min (want_max false) or max of a and b, in *r; false when they cannot be compared. */
static bool form_extreme(const KrNestForm **r, const KrNestForm *b, bool want_max) {
  long long d;
  if (!*r) return *r = b, true;
  if (!kr_nest_form_offset(b, *r, &d)) return false;
  if (want_max ? d > 0 : d < 0) *r = b;
  return true;
}

static KrNestForm *form_plus(const KrNestForm *f, long long c, KrArena *a) {
  KrNestForm *g = kr_arena_alloc(a, sizeof *g);
  bool done = false;
  for (size_t i = 0; i < f->terms.len; i++) {
    KrNestTerm t = f->terms.data[i];
    if (t.var < 0 && t.nsyms == 0) t.coef += c, done = true;
    if (t.coef || t.var >= 0 || t.nsyms) kr_vec_push(a, &g->terms, t);
  }
  if (!done && c) {
    KrNestTerm t = {.coef = c, .var = -1};
    KrVec(KrNestTerm) v = {0};
    kr_vec_push(a, &v, t);   /* the constant sorts first */
    for (size_t i = 0; i < g->terms.len; i++) kr_vec_push(a, &v, g->terms.data[i]);
    g->terms.data = v.data, g->terms.len = v.len, g->terms.cap = v.cap;
  }
  return g;
}

/* True when every read of `array` is contiguous along n (so it is staged with a halo, not as a
 * transpose). */
static bool halo_shaped(const KrNest *n, const KrContraction *c, const char *array) {
  bool any = false;
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (strcmp(r->array, array) != 0 || r->write) continue;
    if (!kr_nest_coef_is(&r->index, c->n, 1)) return false;
    any = true;
  }
  return any;
}

/* Reads the halo of `array`; NULL, or why not (with the place in *at). */
static const char *halo_of(const KrNest *n, const KrContraction *c, const char *array, Halo *h, uint32_t *at, KrArena *a) {
  memset(h, 0, sizeof *h);
  h->array = array;
  const KrNestForm *stride = NULL;
  long long mlo = 0, mhi = 0, nlo = 0, nhi = 0;
  int axes[2] = {c->m, c->n};
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (strcmp(r->array, array) != 0) continue;
    *at = ts_node_start_byte(r->node);
    if (r->write) return kr_arena_printf(a, "'%s' is written by the kernel; a staged copy would go stale", array);
    if (!kr_nest_coef_is(&r->index, c->n, 1))
      return kr_arena_printf(a, "the read of '%s' is not contiguous along '%s' (coefficient %s), so it has no halo tile",
                             array, n->axes.data[c->n].name, kr_nest_coef_text(&r->index, c->n, a));
    const KrNestForm *sm = coef_form(&r->index, c->m, a);
    long long d;
    if (!stride) stride = sm;
    else if (!kr_nest_form_offset(sm, stride, &d) || d != 0)
      return kr_arena_printf(a, "the reads of '%s' step rows by '%s' and '%s'; a halo tile needs one row stride", array,
                             kr_nest_coef_text(&r->index, c->m, a), kr_nest_form_text(n, stride, a));
    if (!sm->terms.len) return kr_arena_printf(a, "the read of '%s' does not move with '%s'", array, n->axes.data[c->m].name);
    long long dm, dn;
    if (!split_offset(fold_consts(n, coef_form(&r->index, -1, a), a), fold_consts(n, stride, a), &dm, &dn))
      return kr_arena_printf(a, "the read of '%s' is not at a constant offset from the output point (its index is %s)",
                             array, kr_nest_form_text(n, &r->index, a));
    long long off[2] = {dm, dn};
    if (!r->range) return kr_arena_printf(a, "the nest has no range for the read of '%s'", array);
    for (int ax = 0; ax < 2; ax++) {
      const KrNestRange *g = &r->range[axes[ax]];
      const char *name = n->axes.data[axes[ax]].name;
      if (!g->hi) return kr_arena_printf(a, "nothing bounds '%s' where '%s' is read", name, array);
      if (g->loose && off[ax]) {
        *at = g->loose_at;
        return kr_arena_printf(a, "this condition decides where '%s' is read at an offset along '%s', and the nest "
                                  "cannot read it as a bound, so the halo's extent is unknown", array, name);
      }
      if (!form_extreme(&h->box_lo[ax], form_plus(&g->lo, off[ax], a), false) ||
          !form_extreme(&h->box_hi[ax], form_plus(g->hi, off[ax], a), true))
        return kr_arena_printf(a, "the reads of '%s' reach along '%s' to bounds that cannot be compared ('%s', '%s')",
                               array, name, kr_nest_form_text(n, h->box_hi[ax], a), kr_nest_form_text(n, g->hi, a));
    }
    if (dm < mlo) mlo = dm;
    if (dm > mhi) mhi = dm;
    if (dn < nlo) nlo = dn;
    if (dn > nhi) nhi = dn;
  }
  if (!stride) return kr_arena_printf(a, "'%s' is not read by the kernel, so there is nothing to stage", array);
  if (mhi - mlo > 64 || nhi - nlo > 64)
    return kr_arena_printf(a, "the reads of '%s' reach %lld rows and %lld columns around the output point; a halo of "
                              "at most 64 fits a tile", array, mhi - mlo, nhi - nlo);
  h->lo_m = (int)-mlo, h->hi_m = (int)mhi, h->lo_n = (int)-nlo, h->hi_n = (int)nhi;
  const char *st = kr_nest_form_text(n, stride, a);
  h->stride = strchr(st, ' ') ? kr_arena_printf(a, "(%s)", st) : st;
  for (size_t p = 0; p < n->kernel->params.len; p++)
    if (strcmp(n->kernel->params.data[p].name, array) == 0) h->type = n->kernel->params.data[p].base;
  return NULL;
}

static int round4(int x) { return (x + 3) / 4 * 4; }

/* The shared bytes of a halo tile (vec: the column halo rounded up to 16 bytes each side). */
static size_t halo_bytes(const KrSchedule *s, const Halo *h, bool vec, size_t elem) {
  size_t cols = (size_t)s->bn + (size_t)(vec ? round4(h->lo_n) + round4(h->hi_n) : h->lo_n + h->hi_n);
  return (size_t)(s->bm + h->lo_m + h->hi_m) * cols * elem;
}

static bool halo_vec(const KrSchedule *s, const KrNest *n, const Halo *h) {
  return s->bn % 4 == 0 && elem_bytes(n, h->array) == 4 && h->type && (strcmp(h->type, "float") == 0 || strcmp(h->type, "int") == 0);
}

/* The staged arrays of a stencil, read; NULL or why not (at: where). */
static const char *halo_check(const KrSchedule *s, const KrNest *n, const KrContraction *c, Halo *hs, uint32_t *at, KrArena *a) {
  size_t bytes = 0;
  for (int i = 0; i < s->nstage; i++) {
    const char *why = halo_of(n, c, s->stage[i], &hs[i], at, a);
    if (why) return why;
    hs[i].vec = halo_vec(s, n, &hs[i]);
    bytes += halo_bytes(s, &hs[i], hs[i].vec, elem_bytes(n, s->stage[i]));
  }
  *at = ts_node_start_byte(n->kernel->node);
  if (bytes > 48 * 1024)
    return kr_arena_printf(a, "the staged tiles with their halos need %zu bytes of shared memory for a %d x %d block tile "
                              "(at most 48 KiB; give tile a smaller block)", bytes, s->bm, s->bn);
  return NULL;
}

/* How many distinct indices `array` is read at. */
static int read_offsets(const KrNest *n, const char *array, KrArena *a) {
  int k = 0;
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (r->write || strcmp(r->array, array) != 0) continue;
    bool seen = false;
    const char *f = kr_nest_form_text(n, &r->index, a);
    for (size_t j = 0; j < i && !seen; j++)
      seen = !n->refs.data[j].write && strcmp(n->refs.data[j].array, array) == 0 &&
             strcmp(kr_nest_form_text(n, &n->refs.data[j].index, a), f) == 0;
    k += !seen;
  }
  return k;
}

bool kr_movement_halo(const KrNest *n, const KrSchedule *s) {
  KrContraction c;
  const char *why;
  KrArena *a = kr_arena_new();
  bool halo = n->reduce < 0 && s->nstage > 0 && kr_movement_of(n, &c, &why, a);
  for (int i = 0; halo && i < s->nstage; i++) halo = halo_shaped(n, &c, s->stage[i]);
  kr_arena_free(a);
  return halo;
}

/* A read of the data-movement nest worth staging: it depends on both axes and is not contiguous
 * along the output's contiguous axis (so reading it in the output's order would not coalesce). */
static const char *movement_ref_ok(const KrNest *n, const KrContraction *c, const KrNestRef *r, KrArena *a) {
  if (r->write) return kr_arena_printf(a, "'%s' is written by the kernel; a staged copy would go stale", r->array);
  if (!reads_axis(&r->index, c->m) || !reads_axis(&r->index, c->n))
    return kr_arena_printf(a, "'%s' does not depend on both axes; each element is read by one thread", r->array);
  const char *f = kr_nest_form_text(n, &r->index, a);
  for (size_t i = 0; i < n->refs.len; i++)   /* a transposed tile holds one element per output */
    if (strcmp(n->refs.data[i].array, r->array) == 0 && strcmp(kr_nest_form_text(n, &n->refs.data[i].index, a), f) != 0)
      return kr_arena_printf(a, "'%s' is read at several offsets and not contiguously along '%s'; a transposed tile "
                                "holds one element per output", r->array, n->axes.data[c->n].name);
  return NULL;
}

static const char *movement_check(const KrSchedule *s, const KrNest *n, const KrContraction *c, KrArena *a) {
  if (s->bm <= 0 || s->bn <= 0) return "the block tile must be positive";
  if (s->tm != 1 || s->tn != 1 || s->stages != 1)
    return "a nest without a reduction has no register tile or k pipeline (register_tile, double_buffer)";
  if (s->nstage == 0) return "nothing to stage: no read depends on both axes";
  if (kr_movement_halo(n, s)) {
    Halo hs[KR_SCHED_MAX_STAGE];
    uint32_t at;
    return halo_check(s, n, c, hs, &at, a);
  }
  size_t bytes = 0;
  for (int i = 0; i < s->nstage; i++) {
    bool read = false;
    for (size_t j = 0; j < n->refs.len; j++) {
      const KrNestRef *r = &n->refs.data[j];
      if (strcmp(r->array, s->stage[i]) != 0) continue;
      const char *why = movement_ref_ok(n, c, r, a);
      if (why) return why;
      read = true;
      bytes += (size_t)s->bm * (size_t)(s->bn + 1) * elem_bytes(n, r->array);
    }
    if (!read) return kr_arena_printf(a, "'%s' is not read by the kernel, so there is nothing to stage", s->stage[i]);
  }
  if (bytes > 48 * 1024) return kr_arena_printf(a, "the staged tiles need %zu bytes of shared memory (at most 48 KiB)", bytes);
  return NULL;
}

const char *kr_schedule_check(const KrSchedule *s, const KrNest *n, const KrContraction *c, KrArena *a) {
  if (n->reduce < 0) return movement_check(s, n, c, a);
  if (s->bm <= 0 || s->bn <= 0 || s->bk <= 0) return "the block tile and the k tile must be positive";
  if (s->tm <= 0 || s->tn <= 0) return "the register tile must be positive";
  if (s->bm % s->tm || s->bn % s->tn)
    return kr_arena_printf(a, "the register tile %d x %d does not divide the block tile %d x %d", s->tm, s->tn,
                           s->bm, s->bn);
  int threads = (s->bm / s->tm) * (s->bn / s->tn);
  if (threads > KR_SM90_MAX_THREADS)
    return kr_arena_printf(a, "a %d x %d block tile with %d x %d outputs per thread needs %d threads; a block "
                              "has at most %d (give register_tile a larger thread tile)", s->bm, s->bn, s->tm,
                           s->tn, threads, KR_SM90_MAX_THREADS);
  if (threads < 32) return kr_arena_printf(a, "the schedule leaves %d threads per block; use at least a warp", threads);
  if (s->tm * s->tn > KR_SM90_MAX_ACC_REGS)
    return kr_arena_printf(a, "%d x %d accumulators per thread would spill registers (at most %d)", s->tm, s->tn,
                           KR_SM90_MAX_ACC_REGS);
  if (s->stages < 1 || s->stages > 4) return "double_buffer takes 2 to 4 stages";
  for (int i = 0; i < s->nstage; i++) {
    const char *why = operand_ok(n, c, s->stage[i], a);
    if (why) return why;
  }
  size_t sh = shared_bytes(s, n, c, a);
  if (sh > KR_SM90_SHARED_BYTES)
    return kr_arena_printf(a, "the staged tiles need %zu bytes of shared memory; sm_90 has %d KiB per block", sh,
                           KR_SM90_SHARED_BYTES / 1024);
  if (s->mma) {
    const char *why = s->mma_wg ? wg_check(s, a) : mma_shape_check(s, a);
    if (why) return why;
  }
  if (s->stages > 1 && s->nstage == 0) return "double_buffer needs staged operands (tile's stage)";
  if (s->persistent && s->parts > 1)
    return "persistent: split_k's parts finish their tile by a block that returns early; a block that walks several "
           "tiles cannot";
  return split_check(s, n, a);
}

void kr_schedule_json(const KrSchedule *s, KrBuf *o) {
  if (s->layout != KR_LAYOUT_NONE) {   /* a row reduction's schedule (passes/reduction.h) */
    static const char *const names[] = {"none", "block", "warp", "column"};
    kr_buf_printf(o, "{\"layout\": \"%s\", \"threads\": %d, \"online\": %s, \"welford\": %s", names[s->layout],
                  s->threads, s->online ? "true" : "false", s->welford ? "true" : "false");
    if (s->row_parts > 1) kr_buf_printf(o, ", \"row_parts\": %d", s->row_parts);
    if (s->row_cluster) kr_buf_puts(o, ", \"cluster\": true");
    if (s->row_resident) kr_buf_puts(o, ", \"resident\": true");
    if (!s->row_vector) kr_buf_puts(o, ", \"vector\": false");
    if (s->row_stream) kr_buf_puts(o, ", \"stream\": true");
    if (s->row_cache) kr_buf_printf(o, ", \"row_cache\": {\"steps\": %d, \"shared\": %d}", s->cache_steps, s->cache_shared);
    kr_buf_putc(o, '}');
    return;
  }
  kr_buf_printf(o, "{\"block\": [%d, %d], \"k\": %d, \"stage\": [", s->bm, s->bn, s->bk);
  for (int i = 0; i < s->nstage; i++) {
    kr_buf_puts(o, i ? ", " : "");
    kr_buf_json_str(o, s->stage[i]);
  }
  kr_buf_printf(o, "], \"pad\": %s, \"thread\": [%d, %d], \"stages\": %d", s->pad ? "true" : "false", s->tm,
                s->tn, s->stages);
  if (s->parts > 1) kr_buf_printf(o, ", \"parts\": %d", s->parts);
  if (s->persistent) kr_buf_printf(o, ", \"persistent\": \"%s\"", s->persistent_down ? "descending" : "ascending");
  if (s->implicit)
    kr_buf_printf(o, ", \"implicit\": {\"table\": %s%s}", s->no_table ? "false" : "true", s->no_patch ? ", \"patch\": false" : "");
  if (s->mma)
    kr_buf_printf(o, ", \"tensor_core\": {\"precision\": \"%s\", \"api\": \"%s\", \"shape\": [%d, %d, %d], \"warp\": [%d, %d]}",
                  mma_names[s->mma], s->mma_wg ? "wgmma" : s->mma_ptx ? "mma" : "wmma", s->mma_m, s->mma_n, s->mma_k, s->wm, s->wn);
  kr_buf_putc(o, '}');
}

/* ---- Text ---------------------------------------------------------------------------------------- */

typedef struct Sub {
  uint32_t start, end;
  const char *text;
} Sub;

typedef KrVec(Sub) Subs;

typedef struct Staged {
  const char *array, *tile, *reg, *type;
  OpKind kind;
  const KrNestRef *ref;
  bool k_fast;             /* the operand is contiguous along k (else along its output axis) */
  bool vec;                /* loaded 4 elements at a time along its tile's contiguous axis (when aligned) */
  bool kmaj;               /* tensor_core: a tile contiguous along k ([outer][BK + pad]), for an operand
                            * contiguous along k, so that its loads are 16 bytes wide */
  const char *vec_ok;      /* the name of the run-time check that the 4-element groups are aligned */
  int pad;                 /* elements of padding at the end of each tile row */
  const char **hoist;      /* implicit_gemm: per axis, the thread's own value of its tile row's axes (its
                            * row is the same in every load when the block's threads are a multiple of
                            * the tile's rows), computed once before the k loop; NULL: none */
  /* implicit_gemm's index table (E->table): the index is row + k, the row part the terms of the tile
   * row's axes and the uniform terms, the k part the band's terms: a table column's entry, or a
   * multiple of the flattened k. */
  const KrNestForm *row_form;
  int tcol;                /* the k part's table column, or -1: kcoef times the flattened k */
  const char *kcoef;
  const char *base, *row_ok;   /* hoisted rows: the thread's row part and row guard, once */
  /* tensor_core, an fp32 operand lowered to fp16 or bf16 as it is gathered through the table: a thread
   * loads two consecutive rows of the tile, both hoisted, and stores the pair converted in one half2
   * (bfloat162) store; pair_* are the second row's hoisted axes, part and guard. */
  bool pair;
  const char **pair_hoist;
  const char *pair_base, *pair_ok;
} Staged;

/* One comparison of the update's condition (`form >= 0`) under the index table: its row part (hoisted
 * for a hoisted row) plus sign times a table column (col -1: none). */
typedef struct TabCmp {
  const KrNestForm *row_form;
  const char *row;         /* hoisted: the name of the row part's value; NULL: computed per load */
  const char *pair_row;    /* the same for the second row of a pair (Staged.pair) */
  int col, sign;
  const char *span;        /* hoisted, this comparison (sign 1) and its partner as one range test */
  bool in_span;            /* the partner (sign -1), tested by the other's span */
} TabCmp;

typedef KrVec(const KrNestForm *) Forms;

/* implicit_gemm under wgmma: the register operand's k tiles as patches of its rows (patch_plan). */
typedef struct Patch {
  bool on;                 /* planned: the index and the condition split into rows and columns */
  int q, s;                /* the m group's and the k group's innermost axes: a patch row's column is cq q + cs s */
  const KrNestForm *cq, *cs;
  const KrNestForm *mrow, *krow, *uni;   /* the index's terms over the other m axes, the other k axes, and uniform */
  Forms seg_m;       /* a comparison over neither q nor s: its m part (with uniform terms) */
  KrVec(int) seg_col, seg_sign;          /* ... and its k part: sign times rtab column seg_col (-1: none) */
  Forms colb;        /* a comparison over the column alone: its uniform rest, */
  KrVec(int) colb_sign;                  /* +1: column >= -rest, -1: column <= rest */
  Forms rcols;       /* rtab's columns after the k row's index part: the k parts */
  const char *use, *cqv, *csv, *off, *lo, *hi, *lp, *lc, *nr, *nkmax, *rf, *pok, *psrc, *pdst, *mp, *ftab, *rtab;
  KrVec(const char *) seg_name;          /* the thread's patch row's m part of each such comparison */
} Patch;

struct MmaProduct;

typedef struct Emit {
  KrPassCtx *cx;
  const KrNest *n;
  const KrTree *t;
  const KrSchedule *s;
  KrContraction c;
  KrArena *a;
  KrLoops *lx;             /* of the lifted text: names already used */
  KrBuf *o;
  const char *unit, *nl;
  KrVec(const char *) taken;
  Staged st[KR_SCHED_MAX_STAGE];
  int nst;
  bool guard_k;            /* a zero-filled tile element would change the result: guard the k loop */
  /* Fresh names. */
  const char *BM, *BN, *BK, *TM, *TN, *NT, *STAGES, *tid, *m0, *n0, *tm0, *tn0, *k0, *kk, *kt, *ntiles, *acc, *ia,
    *ib, *e, *mm, *v, *nn;
  const char *it;          /* the cooperative loops' counter, named when first needed */
  /* tensor_core's names, and the product it computes. */
  const char *WM, *WN, *MM, *MN, *MK, *FM, *FN, *wm0, *wn0, *cf, *fa, *fb, *fa_lo, *fb_lo, *xv, *tf, *lane, *gq, *tq;
  const struct MmaProduct *prod;
  const char *smem;        /* the dynamic shared memory the tiles are carved from, or NULL (static tiles) */
  size_t smem_bytes;       /* its size */
  bool uses_ld[4];         /* api mma: the ldmatrix helpers the loads call */
  /* api wgmma: the operand read from shared memory (x) and the one from registers (r); wt: x is the m
   * side's, so the warpgroups compute the transposed product (rows along n, columns along m). */
  const struct Staged *wx, *wr;
  bool wt;
  int wcols;               /* the product's columns, wgmma's N: BM when transposed, else BN */
  const char *wlo;         /* 3xtf32: the tile of x's residuals (two buffers, x's layout); NULL otherwise */
  const char *wrow0;       /* the warp's first row of the product: wn0 when transposed, else wm0 */
  /* The k range the block's k loop walks: the loop's own bounds, or one part's under split_k
   * (k_tiles NULL: the tiles of [k_lo, k_end)). */
  const char *k_lo, *k_end, *k_tiles;
  /* implicit_gemm: the tiles are gathered element by element (a role groups several axes, or the
   * update is under a condition), and the staged operand whose loads the condition guards. */
  bool gather;
  const Staged *cond_st;
  KrVec(const char *) fd_text, fd_name;   /* the run-time divisors of the groups, and their kr_fastdiv */
  /* implicit_gemm's index table: the k parts of the gathered indices and of the condition's
   * comparisons for a k tile, int tab[2][BK][columns]; the slot the loads being emitted read. */
  bool table;
  const char *tab, *tslot;
  Forms tcols;
  KrVec(TabCmp) tcmp;
  Patch pt;
  struct Pool *pool;       /* fuse's max-pool consumer computed from the staged output tile (pool_plan), or NULL */
  TSNode pool_call;        /* its call in the epilogue, which emit_output_at leaves out while pool_tail is set */
  const char *pool_tail;   /* a statement emit_output_at ends each output with (the value into the tile) */
  int shift;               /* levels every line is indented past its depth: 1 inside persistent's tile loop */
  Subs epi;                /* the staged epilogue's reads by the n axis alone, to their shared copies (stage_by_n) */
} Emit;

static bool taken(Emit *E, const char *name) {
  if (kr_loops_name_used(E->lx, name)) return true;
  for (size_t i = 0; i < E->taken.len; i++)
    if (strcmp(E->taken.data[i], name) == 0) return true;
  return false;
}

static const char *fresh(Emit *E, const char *base) {
  const char *name = base;
  for (int i = 1; taken(E, name); i++) name = kr_arena_printf(E->a, "%s_%d", base, i);
  kr_vec_push(E->a, &E->taken, name);
  return name;
}

static void line(Emit *E, int depth, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(Emit *E, int depth, const char *fmt, ...) {
  for (int i = 0; i < depth + E->shift; i++) kr_buf_puts(E->o, E->unit);
  va_list ap;
  va_start(ap, fmt);
  kr_buf_vprintf(E->o, fmt, ap);
  va_end(ap);
  kr_buf_puts(E->o, E->nl);
}

static int sub_cmp(const void *x, const void *y) {
  const Sub *p = x, *q = y;
  return p->start < q->start ? -1 : p->start > q->start;
}

/* The text of `node` with the substitutions that fall inside it, its lines kept. */
static const char *splice_keep(Emit *E, TSNode node, const Subs *subs) {
  uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
  Sub *in = kr_arena_alloc(E->a, (subs->len + 1) * sizeof *in);
  size_t k = 0;
  for (size_t i = 0; i < subs->len; i++)
    if (subs->data[i].start >= s && subs->data[i].end <= e) in[k++] = subs->data[i];
  qsort(in, k, sizeof *in, sub_cmp);
  KrBuf b = {0};
  const char *src = E->t->src->text;
  uint32_t at = s;
  for (size_t i = 0; i < k; i++) {
    if (in[i].start < at) continue;   /* nested inside an earlier substitution */
    kr_buf_append(&b, src + at, in[i].start - at);
    kr_buf_puts(&b, in[i].text);
    at = in[i].end;
  }
  kr_buf_append(&b, src + at, e - at);
  const char *r = kr_arena_strndup(E->a, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return r;
}

/* The same, folded onto one line: newlines and the indentation after them become one space. */
static const char *splice(Emit *E, TSNode node, const Subs *subs) {
  const char *t = splice_keep(E, node, subs);
  KrBuf b = {.data = (char *)t, .len = strlen(t)};
  KrBuf f = {0};
  for (size_t i = 0; i < b.len; i++) {
    char ch = b.data[i];
    if (ch == '\r') continue;
    if (ch == '\n') {
      while (i + 1 < b.len && (b.data[i + 1] == ' ' || b.data[i + 1] == '\t')) i++;
      kr_buf_putc(&f, ' ');
      continue;
    }
    kr_buf_putc(&f, ch);
  }
  const char *r = kr_arena_strndup(E->a, f.data ? f.data : "", f.len);
  kr_buf_free(&f);
  return r;
}

static void sub_add(Emit *E, Subs *subs, TSNode n, const char *text) {
  Sub s = {ts_node_start_byte(n), ts_node_end_byte(n), text};
  kr_vec_push(E->a, subs, s);
}

/* True when `name` occurs in `text` as a whole identifier. */
static bool uses(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
    if ((p == text || !kr_ident_char(p[-1])) && !kr_ident_char(p[n]) && !(p > text && p[-1] == '.')) return true;
  return false;
}

static const char *node_text(Emit *E, TSNode n) {
  Subs none = {0};
  return splice(E, n, &none);
}

/* True when `text` uses a name that the declaration `decl` declares (`int ih = …, iw = …;`). */
static bool declares_used(Emit *E, TSNode decl, const char *text) {
  for (uint32_t c = 0; c < ts_node_named_child_count(decl); c++) {
    TSNode d = ts_node_named_child(decl, c);
    TSNode id = ts_node_child_by_field_name(d, "declarator", 10);
    if (strcmp(ts_node_type(d), "init_declarator") == 0 && !ts_node_is_null(id) && uses(text, node_text(E, id))) return true;
  }
  return false;
}

/* ---- Roles as groups of axes ------------------------------------------------------------------------------ */

/* The number of values an axis takes ([lo, hi) with lo 0, as implicit_roles requires of groups). */
static const char *axis_extent(const KrNestAxis *x) { return x->hi; }

/* The product of the extents of the role's axes at positions [from, to) ("" when none; one axis's extent
 * as it is, so that a divisor has one text). */
static const char *role_extent_between(Emit *E, int role, int from, int to) {
  KrBuf b = {0};
  if (to - from == 1) return axis_extent(&E->n->axes.data[E->c.group[role][from]]);
  for (int i = from; i < to; i++)
    kr_buf_printf(&b, "%s(%s)", b.len ? " * " : "", axis_extent(&E->n->axes.data[E->c.group[role][i]]));
  const char *r = kr_arena_strdup(E->a, b.data ? b.data : "");
  kr_buf_free(&b);
  return r;
}

/* The product of the extents of the role's axes from position `from` on ("" when none). */
static const char *role_extent_from(Emit *E, int role, int from) {
  return role_extent_between(E, role, from, E->c.ngroup[role]);
}

/* The kr_fastdiv of a run-time divisor (its text), declared at the top of the kernel. */
static const char *fastdiv(Emit *E, const char *divisor) {
  for (size_t i = 0; i < E->fd_text.len; i++)
    if (strcmp(E->fd_text.data[i], divisor) == 0) return E->fd_name.data[i];
  const char *name = fresh(E, "div");
  kr_vec_push(E->a, &E->fd_text, divisor);
  kr_vec_push(E->a, &E->fd_name, name);
  return name;
}

/* Sets the values of the role's first `to` axes for `v`, the flattening of those axes: one axis takes
 * v; several their digits, outermost first (n = v / (P * Q), p = v / Q % P, q = v % Q), each division
 * by a run-time extent a multiply and a shift (kr_fastdiv). */
static void set_role_axes(Emit *E, const char **value, int role, const char *v, int to) {
  const KrContraction *c = &E->c;
  for (int i = 0; i < to; i++) {
    const KrNestAxis *x = &E->n->axes.data[c->group[role][i]];
    const char *below = role_extent_between(E, role, i + 1, to);
    const char *q = *below ? kr_arena_printf(E->a, "kr_div(%s, %s)", v, fastdiv(E, below)) : v;
    value[c->group[role][i]] = i == 0 ? q : kr_arena_printf(E->a, "kr_mod(%s, %s)", q, fastdiv(E, axis_extent(x)));
  }
}

/* The values of all the role's axes for the role's (flattened) index `v`. */
static void set_role(Emit *E, const char **value, int role, const char *v) {
  set_role_axes(E, value, role, v, E->c.ngroup[role]);
}

/* ---- Index variables of a scope --------------------------------------------------------------------------- */

/* Declares, before `body` (statement texts of one scope), what they use of: the axis variables
 * (given their values in this scope; NULL: not available), the flat indices and the derived
 * locals. */
static void scope_decls(Emit *E, int depth, const char *const *value, const char *body) {
  const KrNest *n = E->n;
  unsigned have = 0, need = 0;
  for (size_t i = 0; i < n->axes.len; i++)
    if (value[i]) have |= 1u << i;
  /* What the statements use, and what that needs: a flat index its two halves, a derived local
   * the axes it is computed from. */
  bool *flat_used = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *flat_used);
  for (size_t i = 0; i < n->axes.len; i++) {
    const KrNestAxis *x = &n->axes.data[i];
    if (value[i] && uses(body, x->name)) need |= 1u << i;
    if (!x->flat || !x->outer || !value[i] || !uses(body, x->flat)) continue;
    unsigned parts = 1u << i;   /* a flat index is available when all its parts are */
    bool all = true;
    for (size_t j = 0; j < n->axes.len; j++) {
      const KrNestAxis *y = &n->axes.data[j];
      if (j == i || !y->flat || strcmp(y->flat, x->flat) != 0) continue;
      parts |= 1u << j;
      all &= value[j] != NULL;
    }
    if (all) flat_used[i] = true, need |= parts;
  }
  bool *loop_used = kr_arena_alloc(E->a, (n->loop_derived.len + 1) * sizeof *loop_used);
  for (size_t i = 0; i < n->loop_derived.len; i++) {
    if ((n->loop_derived_axes.data[i] & ~have) != 0) continue;
    loop_used[i] = declares_used(E, n->loop_derived.data[i], body);
    if (loop_used[i]) need |= n->loop_derived_axes.data[i];
  }
  bool *derived_used = kr_arena_alloc(E->a, (n->derived.len + 1) * sizeof *derived_used);
  for (size_t i = 0; i < n->derived.len; i++) {
    if ((n->derived_axes.data[i] & ~have) != 0) continue;
    TSNode d = n->derived.data[i];
    TSNode id = ts_node_child_by_field_name(ts_node_child_by_field_name(d, "declarator", 10), "declarator", 10);
    if (uses(body, node_text(E, id))) derived_used[i] = true, need |= n->derived_axes.data[i];
  }
  for (size_t i = 0; i < n->axes.len; i++)
    if (need & (1u << i)) line(E, depth, "const int %s = %s;", n->axes.data[i].name, value[i]);
  for (size_t i = 0; i < n->axes.len; i++) {
    const KrNestAxis *x = &n->axes.data[i];
    if (!flat_used[i]) continue;
    /* flat = outer * div + … + middle * step + inner */
    KrBuf f = {0};
    kr_buf_printf(&f, "%s * (%s)", x->name, x->div);
    for (size_t j = 0; j < n->axes.len; j++) {
      const KrNestAxis *y = &n->axes.data[j];
      if (y->flat && y->step && strcmp(y->flat, x->flat) == 0) kr_buf_printf(&f, " + %s * (%s)", y->name, y->step);
    }
    for (size_t j = 0; j < n->axes.len; j++) {
      const KrNestAxis *y = &n->axes.data[j];
      if (y->flat && !y->outer && !y->step && strcmp(y->flat, x->flat) == 0) kr_buf_printf(&f, " + %s", y->name);
    }
    line(E, depth, "const int %s = %s;", x->flat, f.data);
    kr_buf_free(&f);
  }
  for (size_t i = 0; i < n->derived.len; i++)
    if (derived_used[i]) line(E, depth, "%s", node_text(E, n->derived.data[i]));
  for (size_t i = 0; i < n->loop_derived.len; i++)
    if (loop_used[i]) line(E, depth, "%s", node_text(E, n->loop_derived.data[i]));
}

/* `body` (statements, each ending in a newline) after the declarations it needs (scope_decls). */
static void scope_body(Emit *E, int depth, const char *const *value, const char *body) {
  scope_decls(E, depth, value, body);
  for (const char *p = body; *p;) {
    const char *nl = strchr(p, '\n');
    line(E, depth, "%.*s", (int)(nl - p), p);
    p = nl + 1;
  }
}

/* ---- Parts of the kernel ------------------------------------------------------------------------------------ */

/* A thread's register tile along one output axis (T outputs of a block tile of B). Above 4, the T
 * outputs are T/4 runs of 4 spaced B*4/T apart, so that the threads of a warp read consecutive
 * 16-byte pieces of a shared row (no bank conflicts) and store consecutive columns. */
static bool chunked(int t) { return t > 4 && t % 4 == 0; }

static const char *tile_offset(Emit *E, bool m, const char *ix) {
  int t = m ? E->s->tm : E->s->tn;
  const char *base = m ? E->tm0 : E->tn0, *B = m ? E->BM : E->BN, *T = m ? E->TM : E->TN;
  if (!chunked(t)) return kr_arena_printf(E->a, "%s + %s", base, ix);
  return kr_arena_printf(E->a, "%s + (%s / 4) * (%s / (%s / 4)) + %s %% 4", base, ix, B, T, ix);
}

static const char *identity(const Emit *E, const char *type) {
  if (E->n->op == KR_RED_SUM) return kr_arena_printf(E->a, "(%s)0", type);
  bool dbl = strcmp(type, "double") == 0;
  bool integer = !dbl && strcmp(type, "float") != 0;
  if (integer) return E->n->op == KR_RED_MAX ? "INT_MIN" : "INT_MAX";
  return E->n->op == KR_RED_MAX ? "-INFINITY" : "INFINITY";
}

/* The per-axis guards of the axes in `f` (conjuncts over one axis), "" when none. */
static const char *axis_guards(Emit *E, const KrNestForm *f) {
  const KrNest *n = E->n;
  KrBuf b = {0};
  for (size_t i = 0; i < n->guards.len; i++) {
    const KrNestGuard *g = &n->guards.data[i];
    if (g->naxes != 1) continue;
    bool mine = false;
    for (size_t ax = 0; ax < n->axes.len; ax++)
      if (reads_axis(f, (int)ax) && uses(g->text, n->axes.data[ax].name)) mine = true;
    bool flat = false;   /* a guard on a flat index bounds its halves: each by its own extent */
    for (size_t ax = 0; ax < n->axes.len && !mine; ax++)
      if (n->axes.data[ax].flat && uses(g->text, n->axes.data[ax].flat) && reads_axis(f, (int)ax)) {
        kr_buf_printf(&b, "%s%s < %s", b.len ? " && " : "", n->axes.data[ax].name, n->axes.data[ax].hi);
        flat = true;
      }
    if (flat) continue;
    if (mine) kr_buf_printf(&b, "%s%s", b.len ? " && " : "", g->text);
  }
  const char *r = kr_arena_strdup(E->a, b.data ? b.data : "");
  kr_buf_free(&b);
  return r;
}

/* The per-axis guards of the axes in `f`, and the k loop's bound. */
static const char *load_guard(Emit *E, const KrNestForm *f) {
  const char *g = axis_guards(E, f);
  const KrNestAxis *k = &E->n->axes.data[E->c.k];
  return kr_arena_printf(E->a, "%s%s%s < %s", g, *g ? " && " : "", k->name, k->hi);
}

/* The head of a cooperative loop over `count` elements (`count_text` in the kernel's names) by
 * the block's threads. When the threads divide the count, each thread takes the same number of
 * elements and the loop has a constant trip count, so it unrolls and every thread's loads are in
 * flight at once; otherwise a strided loop. */
/* The threads of a block of the schedule: one per TM x TN outputs. */
static long block_threads(const KrSchedule *s) { return (long)(s->bm / s->tm) * (s->bn / s->tn); }

static void coop_loop(Emit *E, int depth, long count, const char *count_text) {
  long nt = block_threads(E->s);
  if (count % nt == 0) {
    if (!E->it) E->it = fresh(E, "it");
    const char *it = E->it;
    line(E, depth, "#pragma unroll");
    line(E, depth, "for (int %s = 0; %s < (%s) / %s; %s++) {", it, it, count_text, E->NT, it);
    return;
  }
  line(E, depth, "for (int %s = %s; %s < %s; %s += %s) {", E->e, E->tid, E->e, count_text, E->e, E->NT);
}

/* The quotient and remainder of a cooperative loop's element by a tile extent W (wtext, its value w),
 * for a loop over `count` elements (coop_loop): in the unrolled form (e = tid + it * NT) with NT a
 * multiple of W, as tid / W + it * (NT / W) and tid % W. Those equal e / W and e % W, tid being
 * non-negative, which the compiler cannot know of an int: with e's own division it kept each
 * iteration's quotient in a register and computed every element's shared address from it (conv2d's
 * gather on the H200: 16 registers and two IMADs an element), where now the iteration's part is a
 * constant offset. */
/* Element e of a cooperative loop over `count` elements whose variable is `it` in the counted form
 * (count a multiple of the block's threads: it runs over count / NT, and e is tid + it * NT, which the
 * loop does not declare) and `e` otherwise. */
static const char *coop_elem(const Emit *E, long count, const char *it, const char *e) {
  return count % block_threads(E->s) == 0 ? kr_arena_printf(E->a, "(%s + %s * %s)", E->tid, it, E->NT) : e;
}

/* coop_elem of coop_loop's loops (E->it, E->e). */
static const char *coop_e(const Emit *E, long count) { return coop_elem(E, count, E->it, E->e); }

/* split_e for a loop of coop_elem's forms with variables `it` and `e`. */
static void split_elem(const Emit *E, long count, const char *it, const char *e, const char *wtext, long w,
                       const char **quo, const char **rem) {
  long nt = block_threads(E->s);
  if (strpbrk(wtext, " +-*/%")) wtext = kr_arena_printf(E->a, "(%s)", wtext);
  if (count % nt == 0 && w > 0 && nt % w == 0) {
    *quo = kr_arena_printf(E->a, "%s / %s + %s * %ld", E->tid, wtext, it, nt / w);
    *rem = kr_arena_printf(E->a, "%s %% %s", E->tid, wtext);
  } else {
    *quo = kr_arena_printf(E->a, "%s / %s", coop_elem(E, count, it, e), wtext);
    *rem = kr_arena_printf(E->a, "%s %% %s", coop_elem(E, count, it, e), wtext);
  }
}

static void split_e(const Emit *E, long count, const char *wtext, long w, const char **quo, const char **rem) {
  split_elem(E, count, E->it, E->e, wtext, w, quo, rem);
}

/* split_e's `mm` (an output row of the tile) and `kk` (its k) of element e of an operand's load:
 * k_fast tiles run along k first (BK elements a row), the others along their output axis (`out`,
 * `w` rows). */
static void emit_mm_kk(Emit *E, int depth, long count, bool k_fast, const char *out, long w) {
  const char *quo, *rem;
  if (k_fast) {
    split_e(E, count, E->BK, E->s->bk, &quo, &rem);
    line(E, depth, "const int %s = %s, %s = %s;", E->mm, quo, E->kk, rem);
  } else {
    split_e(E, count, out, w, &quo, &rem);
    line(E, depth, "const int %s = %s, %s = %s;", E->mm, rem, E->kk, quo);
  }
}

static int group_width(const Emit *E, const Staged *st);

/* Whether a staged tile is kept in wgmma's 128-byte-swizzled layout (api wgmma, a k-major tile): rows of
 * 128 bytes (BK elements), the 16-byte group c of row r stored at group c ^ (r % 8) of its row, one
 * array of rows * BK elements per stage. wgmma's hardware undoes the swizzle from the address bits, so
 * the tiles start on 1024 bytes; a warp's 16-byte loads of one row, or of 8 rows at one group, fall in
 * distinct banks. */
static bool swizzled(const Emit *E, const Staged *st) { return E->s->mma_wg && st->kmaj; }

/* The bytes of an element of `array`'s shared tile: 2 when tensor_core lowers it to fp16 or bf16, else
 * the array's own. */
static size_t tile_elem_bytes(const KrSchedule *s, const KrNest *n, const char *array);

/* The element (row, k) of a k-major tile in buffer `buf`: [row][k], or its place in the swizzle. */
static const char *kmaj_at(Emit *E, const Staged *st, const char *buf, const char *row, const char *k) {
  if (!swizzled(E, st)) return kr_arena_printf(E->a, "%s%s[%s][%s]", st->tile, buf, row, k);
  int g = (int)(16 / tile_elem_bytes(E->s, E->n, st->array));   /* elements in a 16-byte group of the tile */
  return kr_arena_printf(E->a, "%s%s[(%s) * %s + ((((%s) / %d) ^ ((%s) %% 8)) * %d) + (%s) %% %d]", st->tile, buf, row, E->BK,
                         k, g, row, g, k, g);
}

/* One element of a staged operand copied by cp.async under `guard`: one copy either way, past the
 * guard reading no byte (its source size 0, the address the array's own) and zero-filling the
 * element, with no branch around a store of zero. */
static void emit_guarded_copy(Emit *E, int depth, const Staged *st, const char *dst, const char *ref, const char *index,
                              const char *guard) {
  const char *in = fresh(E, "in");
  line(E, depth, "const bool %s = %s;", in, guard);
  if (index)   /* the index chosen, not the pointer: one select, where two pointers cost a register pair each */
    line(E, depth, "__pipeline_memcpy_async(&%s, &%s[%s ? %s : 0], sizeof(%s), %s ? 0 : sizeof(%s));", dst, st->array, in,
         index, st->type, in, st->type);
  else
    line(E, depth, "__pipeline_memcpy_async(&%s, %s ? &%s : %s, sizeof(%s), %s ? 0 : sizeof(%s));", dst, in, ref, st->array,
         st->type, in, st->type);
}

/* One staged operand's cooperative load of the k tile at `k_start` into buffer `buf`. */
static void emit_load(Emit *E, int depth, const Staged *st, const char *k_start, const char *buf, bool inside) {
  const KrNest *n = E->n;
  const char *out = st->kind == OP_M ? E->BM : E->BN;
  const char *rows = st->kind == OP_K ? "1" : out;
  const char *mm = E->mm;
  long count = (long)(st->kind == OP_K ? 1 : st->kind == OP_M ? E->s->bm : E->s->bn) * E->s->bk;
  coop_loop(E, depth, count, kr_arena_printf(E->a, "%s * %s", rows, E->BK));
  if (st->kind == OP_K) line(E, depth + 1, "const int %s = %s;", E->kk, coop_e(E, count));
  else emit_mm_kk(E, depth + 1, count, st->k_fast, out, st->kind == OP_M ? E->s->bm : E->s->bn);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  if (st->hoist)
    for (size_t ax = 0; ax < n->axes.len; ax++) value[ax] = st->hoist[ax];
  else if (st->kind == OP_M) set_role(E, value, 0, kr_arena_printf(E->a, "%s + %s", E->m0, mm));
  else if (st->kind == OP_N) set_role(E, value, 1, kr_arena_printf(E->a, "%s + %s", E->n0, mm));
  set_role(E, value, 2, kr_arena_printf(E->a, "%s + %s", k_start, E->kk));
  const char *ref = node_text(E, st->ref->node), *guard = load_guard(E, &st->ref->index);
  if (st == E->cond_st) guard = kr_arena_printf(E->a, "%s && (%s)", guard, node_text(E, n->update_cond));
  const char *dst = st->kind == OP_K ? kr_arena_printf(E->a, "%s%s[%s]", st->tile, buf, E->kk)
                    : st->kmaj        ? kmaj_at(E, st, buf, mm, E->kk)
                                      : kr_arena_printf(E->a, "%s%s[%s][%s]", st->tile, buf, E->kk, mm);
  KrBuf body = {0};
  kr_buf_printf(&body, "%s %s %s", ref, guard, dst);
  scope_decls(E, depth + 1, value, body.data);
  kr_buf_free(&body);
  bool async = E->s->stages > 1 && elem_bytes(n, st->array) >= 4;   /* cp.async copies 4, 8 or 16 bytes */
  if (inside && async) {
    line(E, depth + 1, "__pipeline_memcpy_async(&%s, &%s, sizeof(%s));", dst, ref, st->type);
  } else if (inside) {
    line(E, depth + 1, "%s = %s;", dst, ref);
  } else if (async) {
    emit_guarded_copy(E, depth + 1, st, dst, ref, NULL, guard);
  } else {
    line(E, depth + 1, "%s = (%s) ? %s : (%s)0;", dst, guard, ref, st->type);
  }
  line(E, depth, "}");
}

/* ---- implicit_gemm's index table -------------------------------------------------------------------------
 * A gathered element's index is linear in the axes (nest.h), so it is a row part (the terms of its tile
 * row's axes and the uniform terms: n * C * H * W + (p * stride - pad) * W + q * stride) plus a k part
 * (the band's terms: c * H * W + r * W + s). The row part is the same for a thread in every load when
 * its row is hoisted; the k part is the same for every row of a k tile. So the k parts of a k tile,
 * and those of the update condition's comparisons (r and s of the padding test), are computed once per
 * block into a table in shared memory, BK entries a column: an element's load is its row's part plus
 * an entry, its padding test a row's part plus an entry per comparison, and no element's axes are
 * recovered by division. An operand that reads the band through its flattened index (the weights'
 * c * R * S + r * S + s) needs no column: its k part is a multiple of the flat k. The table has two
 * slots: the slot of the next tile to load is filled while this one's loads are in flight, and the k
 * loop's barriers separate a slot's fill from its reads. */

static unsigned group_mask(const KrContraction *c, int role) {
  unsigned m = 0;
  for (int i = 0; i < c->ngroup[role]; i++) m |= 1u << c->group[role][i];
  return m;
}

static unsigned form_mask(const KrNestForm *f) {
  unsigned m = 0;
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var >= 0) m |= 1u << f->terms.data[i].var;
  return m;
}

/* The terms of `f` over the axes of `mask`, and its uniform terms when `uniform`. */
static KrNestForm *part_of(const KrNestForm *f, unsigned mask, bool uniform, KrArena *a) {
  KrNestForm *g = kr_arena_alloc(a, sizeof *g);
  for (size_t i = 0; i < f->terms.len; i++) {
    int v = f->terms.data[i].var;
    if (v >= 0 ? (mask >> v) & 1u : uniform) kr_vec_push(a, &g->terms, f->terms.data[i]);
  }
  return g;
}

static KrNestForm *form_neg(const KrNestForm *f, KrArena *a) {
  KrNestForm *g = kr_arena_alloc(a, sizeof *g);
  for (size_t i = 0; i < f->terms.len; i++) {
    KrNestTerm t = f->terms.data[i];
    t.coef = -t.coef;
    kr_vec_push(a, &g->terms, t);
  }
  return g;
}

static bool form_eq(const KrNestForm *a, const KrNestForm *b) {
  long long d;
  return kr_nest_form_offset(a, b, &d) && d == 0;
}

/* The column of `cols` holding `f` (a new one when none does), read with *sign (-1: the column holds
 * -f, when `negated` allows it). */
static int form_column(KrArena *a, Forms *cols, const KrNestForm *f, bool negated, int *sign) {
  const KrNestForm *neg = form_neg(f, a);
  for (size_t i = 0; i < cols->len; i++) {
    if (form_eq(f, cols->data[i])) return *sign = 1, (int)i;
    if (negated && form_eq(neg, cols->data[i])) return *sign = -1, (int)i;
  }
  kr_vec_push(a, cols, f);
  return *sign = 1, (int)cols->len - 1;
}

/* The index table's column holding k part `f`. */
static int tab_column(Emit *E, const KrNestForm *f, bool negated, int *sign) {
  return form_column(E->a, &E->tcols, f, negated, sign);
}

static unsigned row_mask(const Emit *E, const Staged *st) {
  return st->kind == OP_K ? 0 : group_mask(&E->c, st->kind == OP_M ? 0 : 1);
}

/* Whether the gathered tiles go through the index table, and its columns: every operand's index and
 * every comparison of the condition must be a row part plus a k part (no other axis), and the
 * condition must read as comparisons (nest.h, cond_ge). Sets E->table. */
static void table_plan(Emit *E) {
  const KrNest *n = E->n;
  if (!E->gather || E->s->no_table || E->s->parts > 1 || (E->cond_st && !n->cond_ge.len)) return;
  unsigned kmask = group_mask(&E->c, 2);
  for (int i = 0; i < E->nst; i++)
    if (form_mask(&E->st[i].ref->index) & ~(row_mask(E, &E->st[i]) | kmask)) return;
  for (size_t j = 0; E->cond_st && j < n->cond_ge.len; j++)
    if (form_mask(&n->cond_ge.data[j]) & ~(row_mask(E, E->cond_st) | kmask)) return;
  for (int i = 0; i < E->nst; i++) {
    Staged *st = &E->st[i];
    st->row_form = part_of(&st->ref->index, row_mask(E, st), true, E->a);
    KrNestTerm t;
    const KrNestForm *kp = part_of(&st->ref->index, kmask, false, E->a);
    int sign;
    st->tcol = -1, st->kcoef = "0";
    if (band_flat(n, &E->c, &st->ref->index, &t))
      st->kcoef = kr_nest_coef_text(&st->ref->index, E->c.group[2][E->c.ngroup[2] - 1], E->a);
    else if (kp->terms.len)
      st->tcol = tab_column(E, kp, false, &sign);
  }
  for (size_t j = 0; E->cond_st && j < n->cond_ge.len; j++) {
    const KrNestForm *f = &n->cond_ge.data[j];
    TabCmp c = {.row_form = part_of(f, row_mask(E, E->cond_st), true, E->a), .col = -1, .sign = 1};
    const KrNestForm *kp = part_of(f, kmask, false, E->a);
    if (kp->terms.len) c.col = tab_column(E, kp, true, &c.sign);
    kr_vec_push(E->a, &E->tcmp, c);
  }
  E->table = true;
  if (E->tcols.len) E->tab = fresh(E, "ktab");
}

/* The table's entry: its columns padded to a power of two, so that a load reads an entry at once. */
static size_t tab_width(const Emit *E) {
  size_t w = 1;
  while (w < E->tcols.len) w *= 2;
  return w;
}

/* A hoisted row's part of the index, its guard and the condition's row parts, once per thread (for
 * the second row of a pair when `second`). */
static void table_hoist(Emit *E, Staged *st, bool second) {
  const char **h = second ? st->pair_hoist : st->hoist;
  const char *base = fresh(E, kr_arena_printf(E->a, "%s_base", st->array)), *ok = NULL;
  line(E, 1, "const int %s = %s;", base, kr_nest_form_text_at(st->row_form, h, E->a));
  const char *g = axis_guards(E, st->row_form);
  if (*g) {
    ok = fresh(E, kr_arena_printf(E->a, "%s_in", st->array));
    line(E, 1, "bool %s;", ok);
    line(E, 1, "{");
    scope_decls(E, 2, h, g);
    line(E, 2, "%s = %s;", ok, g);
    line(E, 1, "}");
  }
  for (size_t j = 0; st == E->cond_st && j < E->tcmp.len; j++) {
    TabCmp *c = &E->tcmp.data[j];
    const char *name = fresh(E, kr_arena_printf(E->a, "%s_cond", st->array));
    line(E, 1, "const int %s = %s;", name, kr_nest_form_text_at(c->row_form, h, E->a));
    *(second ? &c->pair_row : &c->row) = name;
  }
  /* A column tested both ways, lo + t >= 0 and hi - t >= 0 (a padding test's two sides), is one
   * range test, (unsigned)(lo + t) <= (unsigned)(lo + hi): one addition and one comparison an element
   * where there were two of each, lo + hi hoisted with the row. Where lo + hi < 0 no t passes both,
   * and the row's guard says so; else lo + hi fits 32 bits unsigned, and lo + t, computed as before,
   * is in [0, lo + hi] exactly when both held. */
  for (size_t j = 0; !second && !st->pair && st == E->cond_st && j < E->tcmp.len; j++) {   /* (pairs: pair_guard) */
    TabCmp *c = &E->tcmp.data[j];
    for (size_t k = 0; c->col >= 0 && c->sign > 0 && !c->span && k < E->tcmp.len; k++) {
      TabCmp *d = &E->tcmp.data[k];
      if (d->col != c->col || d->sign > 0 || d->in_span) continue;
      c->span = fresh(E, kr_arena_printf(E->a, "%s_span", st->array));
      d->in_span = true;
      line(E, 1, "const long long %s = (long long)%s + %s;", c->span, c->row, d->row);
      if (!ok) {
        ok = fresh(E, kr_arena_printf(E->a, "%s_in", st->array));
        line(E, 1, "bool %s = true;", ok);
      }
      line(E, 1, "%s = %s && %s >= 0;", ok, ok, c->span);
    }
  }
  if (second) st->pair_base = base, st->pair_ok = ok;
  else st->base = base, st->row_ok = ok;
}

static void patch_rtab_fill(Emit *E, int depth, const char *k_start, const char *slot);

/* Fills slot `slot` of the table with the k parts of the k tile at `k_start`. */
static void emit_table_fill(Emit *E, int depth, const char *k_start, const char *slot) {
  if (!E->tab) return;
  const KrNest *n = E->n;
  const char *te = fresh(E, "te");
  /* Under the patches, a table that only the patched operand's gather reads is filled only where the block
   * gathers: warp 0 filled it every k tile while the others waited at the barrier (4% of conv2d's time). */
  bool gather_only = E->pt.on;
  for (int i = 0; gather_only && i < E->nst; i++) gather_only = &E->st[i] == E->wr || E->st[i].tcol < 0;
  line(E, depth, "// krewrite implicit_gemm: the k parts of the indices for the k tile at %s%s", k_start,
       gather_only ? ", for the gather" : "");
  int d = depth;
  if (gather_only) line(E, d++, "if (!%s) {", E->pt.use);
  line(E, d, "for (int %s = %s; %s < %s; %s += %s) {", te, E->tid, te, E->BK, te, E->NT);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  set_role(E, value, 2, kr_arena_printf(E->a, "%s + %s", k_start, te));
  KrBuf body = {0};
  for (size_t j = 0; j < E->tcols.len; j++)
    kr_buf_printf(&body, "%s[%s][%s][%zu] = %s;\n", E->tab, slot, te, j, kr_nest_form_text(n, E->tcols.data[j], E->a));
  scope_body(E, d + 1, value, body.data);
  kr_buf_free(&body);
  line(E, d, "}");
  if (gather_only) line(E, depth, "}");
  patch_rtab_fill(E, depth, k_start, slot);
}

/* Column `col` of the element's row of the table: from its registers `tv` (a table `tw` ints wide),
 * or, without them, from the table itself. */
static const char *tab_at(Emit *E, const char *tv, size_t tw, int col) {
  if (!tv) return kr_arena_printf(E->a, "%s[%s][%s][%d]", E->tab, E->tslot, E->kk, col);
  if (tw == 1) return tv;
  return kr_arena_printf(E->a, "%s.%c", tv, "xyzw"[col]);
}

/* The guard of one hoisted row's element at k `kf` through the table: its row guard, the k bound, and
 * the condition's comparisons (for the pair's second row when `second`). */
static const char *pair_guard(Emit *E, const Staged *st, const char *kf, bool second) {
  KrBuf g = {0};
  const char *ok = second ? st->pair_ok : st->row_ok;
  if (ok) kr_buf_printf(&g, "%s && ", ok);
  kr_buf_printf(&g, "%s < %s", kf, E->k_end);
  for (size_t j = 0; st == E->cond_st && j < E->tcmp.len; j++) {
    const TabCmp *c = &E->tcmp.data[j];
    const char *r = second ? c->pair_row : c->row;
    if (c->col < 0) kr_buf_printf(&g, " && %s >= 0", r);
    else kr_buf_printf(&g, " && %s %s %s[%s][%s][%d] >= 0", r, c->sign > 0 ? "+" : "-", E->tab, E->tslot, E->kk, c->col);
  }
  const char *r = kr_arena_strdup(E->a, g.data);
  kr_buf_free(&g);
  return r;
}

/* A pair of rows' elements at one k, loaded, converted to fp16 or bf16 and stored as one pair. */
static void emit_load_pair(Emit *E, int depth, const Staged *st, const char *k_start, const char *buf) {
  const char *out = st->kind == OP_M ? E->BM : E->BN, *mm = E->mm;
  long count = (long)(st->kind == OP_M ? E->s->bm : E->s->bn) / 2 * E->s->bk;
  coop_loop(E, depth, count, kr_arena_printf(E->a, "(%s / 2) * %s", out, E->BK));
  const char *quo, *rem;
  split_e(E, count, kr_arena_printf(E->a, "%s / 2", out), (st->kind == OP_M ? E->s->bm : E->s->bn) / 2, &quo, &rem);
  line(E, depth + 1, "const int %s = (%s) * 2, %s = %s;", mm, rem, E->kk, quo);
  const char *kf = kr_arena_printf(E->a, "%s + %s", k_start, E->kk);
  const char *kpart = st->tcol >= 0 ? kr_arena_printf(E->a, "%s[%s][%s][%d]", E->tab, E->tslot, E->kk, st->tcol)
                      : strcmp(st->kcoef, "0") == 0 ? "0"
                                                    : kr_arena_printf(E->a, "(%s) * (%s)", st->kcoef, kf);
  bool bf = E->s->mma == KR_MMA_BF16;
  const char *v0 = fresh(E, "lo"), *v1 = fresh(E, "hi");
  line(E, depth + 1, "const float %s = (%s) ? %s[%s + %s] : 0.0f;", v0, pair_guard(E, st, kf, false), st->array, st->base, kpart);
  line(E, depth + 1, "const float %s = (%s) ? %s[%s + %s] : 0.0f;", v1, pair_guard(E, st, kf, true), st->array, st->pair_base,
       kpart);
  line(E, depth + 1, "*reinterpret_cast<%s *>(&%s%s[%s][%s]) = %s(%s, %s);", bf ? "__nv_bfloat162" : "__half2", st->tile, buf,
       E->kk, mm, bf ? "__floats2bfloat162_rn" : "__floats2half2_rn", v0, v1);
  line(E, depth, "}");
}

/* One staged operand's cooperative load of the k tile at `k_start` through the table. */
static void emit_load_table(Emit *E, int depth, const Staged *st, const char *k_start, const char *buf) {
  const KrNest *n = E->n;
  if (st->pair) {
    emit_load_pair(E, depth, st, k_start, buf);
    return;
  }
  const char *out = st->kind == OP_M ? E->BM : E->BN, *mm = E->mm;
  const char *rows = st->kind == OP_K ? "1" : out;
  long count = (long)(st->kind == OP_K ? 1 : st->kind == OP_M ? E->s->bm : E->s->bn) * E->s->bk;
  coop_loop(E, depth, count, kr_arena_printf(E->a, "%s * %s", rows, E->BK));
  if (st->kind == OP_K) line(E, depth + 1, "const int %s = %s;", E->kk, coop_e(E, count));
  else emit_mm_kk(E, depth + 1, count, st->k_fast, out, st->kind == OP_M ? E->s->bm : E->s->bn);
  const char *kf = kr_arena_printf(E->a, "%s + %s", k_start, E->kk);
  /* The row part and guard: hoisted, or from this element's row axes (their names, declared here). */
  const char *row = st->base, *ok = st->row_ok;
  KrVec(const char *) conds = {0};
  if (!st->base) {
    row = kr_nest_form_text(n, st->row_form, E->a);
    const char *g = axis_guards(E, st->row_form);
    ok = *g ? g : NULL;
  }
  /* The element's row of the table in registers, one load of up to 16 bytes ahead of the guard: the
   * guard is then comparisons of registers, which compile to predicates, where loads from the table
   * in each of its terms compiled to a branch per term (conv2d on the H200: 26 instructions an element
   * before, and 0.589 ms against 0.491 after, bench/results/conv-gather-2026-12-03.json). */
  bool uses_tab = st->tcol >= 0;
  for (size_t j = 0; st == E->cond_st && j < E->tcmp.len; j++) uses_tab = uses_tab || E->tcmp.data[j].col >= 0;
  size_t tw = tab_width(E);
  const char *tv = NULL;
  if (uses_tab && tw <= 4) {
    const char *vt = tw == 4 ? "int4" : tw == 2 ? "int2" : "int";
    tv = fresh(E, "tv");
    line(E, depth + 1, "const %s %s = *reinterpret_cast<const %s *>(&%s[%s][%s][0]);", vt, tv, vt, E->tab, E->tslot, E->kk);
  }
  for (size_t j = 0; st == E->cond_st && j < E->tcmp.len; j++) {
    const TabCmp *c = &E->tcmp.data[j];
    const char *r = c->row ? c->row : kr_nest_form_text(n, c->row_form, E->a);
    if (c->in_span && st->base) continue;   /* tested by its partner's span */
    if (c->span && st->base)
      kr_vec_push(E->a, &conds, kr_arena_printf(E->a, "(unsigned)(%s + %s) <= (unsigned)%s", r, tab_at(E, tv, tw, c->col), c->span));
    else if (c->col < 0) kr_vec_push(E->a, &conds, kr_arena_printf(E->a, "%s >= 0", r));
    else kr_vec_push(E->a, &conds, kr_arena_printf(E->a, "%s %s %s >= 0", r, c->sign > 0 ? "+" : "-", tab_at(E, tv, tw, c->col)));
  }
  const char *kpart = st->tcol >= 0 ? tab_at(E, tv, tw, st->tcol)
                      : strcmp(st->kcoef, "0") == 0 ? NULL
                      : strcmp(st->kcoef, "1") == 0 ? kr_arena_printf(E->a, "(%s)", kf)
                                                    : kr_arena_printf(E->a, "(%s) * (%s)", st->kcoef, kf);
  KrBuf g = {0};
  if (ok) kr_buf_printf(&g, "%s && ", ok);
  kr_buf_printf(&g, "%s < %s", kf, E->k_end);
  for (size_t j = 0; j < conds.len; j++) kr_buf_printf(&g, " && %s", conds.data[j]);
  const char *guard = kr_arena_strdup(E->a, g.data);
  kr_buf_free(&g);
  const char *index = kpart ? kr_arena_printf(E->a, "%s + %s", row, kpart) : row;
  const char *ref = kr_arena_printf(E->a, "%s[%s]", st->array, index);
  if (!st->base) {
    const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
    if (st->kind != OP_K)
      set_role(E, value, st->kind == OP_M ? 0 : 1, kr_arena_printf(E->a, "%s + %s", st->kind == OP_M ? E->m0 : E->n0, mm));
    scope_decls(E, depth + 1, value, kr_arena_printf(E->a, "%s %s", ref, guard));
  }
  const char *dst = st->kind == OP_K ? kr_arena_printf(E->a, "%s%s[%s]", st->tile, buf, E->kk)
                    : st->kmaj        ? kmaj_at(E, st, buf, mm, E->kk)
                                      : kr_arena_printf(E->a, "%s%s[%s][%s]", st->tile, buf, E->kk, mm);
  if (E->s->stages > 1 && elem_bytes(n, st->array) >= 4) {
    emit_guarded_copy(E, depth + 1, st, dst, ref, index, guard);
  } else {
    line(E, depth + 1, "%s = (%s) ? %s : (%s)0;", dst, guard, ref, st->type);
  }
  line(E, depth, "}");
}

/* ---- Row patches ---------------------------------------------------------------------------------- */

/* implicit_gemm under wgmma, when the register operand is the gathered one (x, along m): where its
 * index is a row part (the m group's other axes, the k group's other axes, uniform terms) plus a
 * column cq * q + cs * s (q and s the two groups' innermost axes: a convolution's output column and
 * filter column, cq its stride, cs its dilation), the elements of a k tile are columns of a few rows:
 * for each row (n, p) of the block tile and each (c, r) of the k tile, x[row + col] over col in
 * [0, cq * (Q - 1) + cs * (S - 1)]. Those rows are loaded whole, 16 bytes at a time, into the x tile's
 * memory ([k row][m row][column], LP columns a row), and a fragment element (m, k) is read at its m
 * row's offset plus its column, mp(m) + kp(k), the k parts from a per-tile table (ftab). Where the
 * gather took a 4-byte copy, an index division and a guard per element, a thread now makes a 16-byte
 * copy per k row: conv2d tf32 on the H200, 0.353 -> 0.259 ms by hand (bench/results/conv-patch-2026-12-04.json).
 * The update's condition splits the same way: a comparison over neither q nor s decides a whole patch
 * row (a padding row: zero-filled), one over the column alone bounds the columns (the padding columns,
 * zeroed once, never loaded). Run-time shapes decide per block (x_use): the rows' starts 16-byte
 * aligned with the columns bounds on 16-byte boundaries, the patch within the x tile's memory, and a
 * 16-byte column per thread at most; else the gather runs. Plans nothing when the index or the
 * condition do not split so, or q has a guard of its own beyond its extent. */
static void patch_plan(Emit *E) {
  Patch *P = &E->pt;
  const KrSchedule *s = E->s;
  const KrNest *n = E->n;
  const KrContraction *c = &E->c;
  const Staged *x = E->wr;
  if (s->no_patch || !E->table || !E->tab || !s->mma_wg || E->wt || !x || x->kind != OP_M || x->kmaj || x->pair ||
      x->tcol < 0 || (s->mma != KR_MMA_TF32 && s->mma != KR_MMA_3XTF32) || s->stages < 3 || s->parts > 1 ||
      elem_bytes(n, x->array) != 4 || !E->smem || (E->cond_st && E->cond_st != x) || s->bk % 16 != 0)
    return;
  int q = c->group[0][c->ngroup[0] - 1], sx = c->group[2][c->ngroup[2] - 1];
  const KrNestForm *I = &x->ref->index;
  const KrNestForm *cq = coef_form(I, q, E->a), *cs = coef_form(I, sx, E->a);
  if (!cq->terms.len || !cs->terms.len) return;
  const KrNestAxis *qa = &n->axes.data[q];
  const char *qbound = kr_arena_printf(E->a, "%s < %s", qa->name, qa->hi);
  for (size_t i = 0; i < n->guards.len; i++)
    if (n->guards.data[i].naxes == 1 && uses(n->guards.data[i].text, qa->name) && strcmp(n->guards.data[i].text, qbound) != 0)
      return;
  unsigned mout = group_mask(c, 0) & ~(1u << q), kout = group_mask(c, 2) & ~(1u << sx);
  memset(P, 0, sizeof *P);
  P->q = q, P->s = sx, P->cq = cq, P->cs = cs;
  P->mrow = part_of(I, mout, false, E->a), P->krow = part_of(I, kout, false, E->a), P->uni = part_of(I, 0, true, E->a);
  for (size_t j = 0; E->cond_st && j < n->cond_ge.len; j++) {
    const KrNestForm *f = &n->cond_ge.data[j];
    const KrNestForm *aq = coef_form(f, q, E->a), *as = coef_form(f, sx, E->a);
    if (!aq->terms.len && !as->terms.len) {   /* a whole row's: an m part and a k part */
      if (form_mask(f) & ~(mout | kout)) return;
      const KrNestForm *kp = part_of(f, kout, false, E->a);
      int col = -1, sign = 1;   /* rtab's column 0 is the row's index part */
      if (kp->terms.len) col = form_column(E->a, &P->rcols, kp, true, &sign) + 1;
      kr_vec_push(E->a, &P->seg_m, part_of(f, mout, true, E->a));
      kr_vec_push(E->a, &P->seg_col, col);
      kr_vec_push(E->a, &P->seg_sign, sign);
      continue;
    }
    int sign = form_eq(aq, cq) && form_eq(as, cs) ? 1 : form_eq(aq, form_neg(cq, E->a)) && form_eq(as, form_neg(cs, E->a)) ? -1 : 0;
    if (!sign || (form_mask(f) & ~((1u << q) | (1u << sx)))) return;   /* not a bound of the column alone */
    kr_vec_push(E->a, &P->colb, part_of(f, 0, true, E->a));
    kr_vec_push(E->a, &P->colb_sign, sign);
  }
  if (P->rcols.len > 2) return;   /* rtab's entries are 4 ints: the row part, two k parts, the valid flag */
  P->on = true;
  const char *pre = x->array;
  P->use = fresh(E, kr_arena_printf(E->a, "%s_patch", pre));
  const char **names[] = {&P->cqv, &P->csv, &P->off, &P->lo, &P->hi, &P->lp, &P->lc, &P->nr, &P->nkmax, &P->rf, &P->pok,
                          &P->psrc, &P->pdst, &P->mp, &P->ftab, &P->rtab};
  const char *const suffix[] = {"cq", "cs", "off", "lo", "hi", "lp", "lc", "nr", "nkmax", "rf", "pok", "psrc", "pdst", "mp",
                                "ftab", "rtab"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    *names[i] = fresh(E, kr_arena_printf(E->a, "%s_%s", pre, suffix[i]));
}

/* The number of rows of the role's patches: the product of the extents of all but its innermost axis. */
static const char *outer_extent(Emit *E, int role) {
  const char *r = role_extent_between(E, role, 0, E->c.ngroup[role] - 1);
  return *r ? r : "1";
}

/* The values of the role's axes for `v`, the flattened index of all but its innermost axis, whose
 * value is `inner`. */
static void set_role_outer(Emit *E, const char **value, int role, const char *v, const char *inner) {
  value[E->c.group[role][E->c.ngroup[role] - 1]] = inner;
  set_role_axes(E, value, role, v, E->c.ngroup[role] - 1);
}

/* `body` (statements) in a scope of its own, after the declarations it needs of the axes `value` gives. */
static void scoped(Emit *E, int depth, const char *const *value, const char *body) {
  line(E, depth, "{");
  scope_body(E, depth + 1, value, body);
  line(E, depth, "}");
}

/* Before the k loop: the run-time shapes of the patches and whether this block uses them, the
 * thread's 16-byte column of a patch row, its fragments' m offsets, the padding columns zeroed. */
static void patch_setup(Emit *E, int depth) {
  Patch *P = &E->pt;
  if (!P->on) return;
  const KrNest *n = E->n;
  const Staged *x = E->wr;
  const char *Q = axis_extent(&n->axes.data[P->q]), *S = axis_extent(&n->axes.data[P->s]);
  const char *M = role_extent_from(E, 0, 0), *rows = outer_extent(E, 0);
  const char *cols = fresh(E, kr_arena_printf(E->a, "%s_cols", x->array));
  const char *stage = kr_arena_printf(E->a, "%s * (%s + %d)", E->BK, E->BM, x->pad);
  line(E, depth, "// krewrite implicit_gemm: '%s' as patches of its rows: for each of the block's rows (%s's other axes) "
       "and each of the k tile's (%s's other axes), its columns %s * %s + %s * %s loaded 16 bytes at a time, where the "
       "run-time shapes allow it", x->array, n->axes.data[P->q].name, n->axes.data[P->s].name, "cq", n->axes.data[P->q].name,
       "cs", n->axes.data[P->s].name);
  line(E, depth, "const int %s = %s, %s = %s;", P->cqv, kr_nest_form_text(n, P->cq, E->a), P->csv, kr_nest_form_text(n, P->cs, E->a));
  line(E, depth, "const int %s = %s * ((%s) - 1) + %s * ((%s) - 1) + 1;", cols, P->cqv, Q, P->csv, S);
  line(E, depth, "const int %s = (int)((((long long)(%s)) %% 4 + 4) %% 4);", P->off, kr_nest_form_text(n, P->uni, E->a));
  line(E, depth, "int %s = 0, %s = %s - 1;", P->lo, P->hi, cols);
  for (size_t j = 0; j < P->colb.len; j++) {
    const char *rest = kr_nest_form_text(n, P->colb.data[j], E->a);
    if (P->colb_sign.data[j] > 0) line(E, depth, "%s = max(%s, -(%s));", P->lo, P->lo, rest);
    else line(E, depth, "%s = min(%s, %s);", P->hi, P->hi, rest);
  }
  line(E, depth, "const int %s = (%s + %s + 3) / 4 * 4, %s = (%s - %s + 1) / 4;", P->lp, P->off, cols, P->lc, P->hi, P->lo);
  line(E, depth, "const int %s = (%s - 1 + max(%s, 1) - 1) / max(%s, 1) + 1;", P->nkmax, E->BK, S, S);
  const char *nrmax = fresh(E, kr_arena_printf(E->a, "%s_nrmax", x->array));
  line(E, depth, "const int %s = (%s - 1 + max(%s, 1) - 1) / max(%s, 1) + 1;", nrmax, E->BM, Q, Q);
  /* The rows' starts on 16 bytes: every other coefficient of the index a multiple of 4, the pointer
   * aligned; the uniform part's remainder is where column 0 sits in its 16-byte group (off). */
  KrBuf chk = {0};
  for (size_t ax = 0; ax < n->axes.len; ax++)
    if ((int)ax != P->q && (int)ax != P->s && reads_axis(&x->ref->index, (int)ax))
      kr_buf_printf(&chk, "(%s) %% 4 == 0 && ", kr_nest_coef_text(&x->ref->index, (int)ax, E->a));
  line(E, depth, "const bool %s = (%s) > 0 && (%s) > 0 && %s >= 1 && %s >= 1 && %s >= %s && (%s + %s) %% 4 == 0 && "
       "(%s + %s + 1) %% 4 == 0 && %sreinterpret_cast<unsigned long long>(%s) %% 16 == 0 && "
       "(long long)%s * %s * %s <= (long long)%s && %s * %s <= %s;",
       P->use, Q, S, P->cqv, P->csv, P->hi, P->lo, P->off, P->lo, P->off, P->hi, chk.data ? chk.data : "", x->array,
       nrmax, P->nkmax, P->lp, stage, nrmax, P->lc, E->NT);
  kr_buf_free(&chk);
  const char *qdiv = fastdiv(E, Q);
  line(E, depth, "const int %s = kr_div(%s, %s);", P->rf, E->m0, qdiv);
  line(E, depth, "const int %s = kr_div(min(%s + %s, %s) - 1, %s) - %s + 1;", P->nr, E->m0, E->BM, M, qdiv, P->rf);
  /* The thread's 16-byte column of a patch row: its source (less the k row's part), destination and
   * guard, and the m parts of the comparisons that decide a row. */
  line(E, depth, "int %s = 0, %s = 0;", P->psrc, P->pdst);
  line(E, depth, "bool %s = false;", P->pok);
  for (size_t j = 0; j < P->seg_m.len; j++) {
    const char *nm = fresh(E, kr_arena_printf(E->a, "%s_pcond", x->array));
    kr_vec_push(E->a, &P->seg_name, nm);
    line(E, depth, "int %s = 0;", nm);
  }
  line(E, depth, "if (%s) {", P->use);
  const char *prs = fresh(E, kr_arena_printf(E->a, "%s_prs", x->array)), *pcc = fresh(E, kr_arena_printf(E->a, "%s_pcc", x->array));
  line(E, depth + 1, "const int %s = %s / %s, %s = %s - %s * %s;", prs, E->tid, P->lc, pcc, E->tid, prs, P->lc);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  set_role_outer(E, value, 0, kr_arena_printf(E->a, "%s + %s", P->rf, prs), "0");
  KrBuf body = {0};
  const char *g = axis_guards(E, P->mrow);
  kr_buf_printf(&body, "%s = %s < %s && %s + %s < %s%s%s;\n", P->pok, prs, P->nr, P->rf, prs, rows, *g ? " && " : "", g);
  kr_buf_printf(&body, "%s = %s + %s + %s + 4 * %s;\n", P->psrc, kr_nest_form_text(n, P->mrow, E->a),
                kr_nest_form_text(n, P->uni, E->a), P->lo, pcc);
  for (size_t j = 0; j < P->seg_m.len; j++)
    kr_buf_printf(&body, "%s = %s;\n", P->seg_name.data[j], kr_nest_form_text(n, P->seg_m.data[j], E->a));
  scoped(E, depth + 1, value, body.data);
  kr_buf_free(&body);
  line(E, depth + 1, "%s = %s * %s + %s + %s + 4 * %s;", P->pdst, prs, P->lp, P->off, P->lo, pcc);
  /* The padding columns of every patch row of every stage, zero once; the loads never write them. */
  const char *zc = fresh(E, "zc"), *ze = fresh(E, "ze"), *zs = fresh(E, "zs"), *zr = fresh(E, "zr"), *segs = fresh(E, "segs");
  line(E, depth + 1, "const int %s = %s - 4 * %s, %s = %s * %s;", zc, P->lp, P->lc, segs, P->nkmax, P->nr);
  line(E, depth + 1, "for (int %s = %s; %s < %s * %s * %s; %s += %s) {", ze, E->tid, ze, E->STAGES, segs, zc, ze, E->NT);
  line(E, depth + 2, "const int %s = %s / %s, %s = %s - %s * %s;", zr, ze, zc, zs, ze, zr, zc);
  line(E, depth + 2, "(&%s[%s / %s][0][0])[(%s %% %s) * %s + (%s < %s + %s ? %s : %s + 4 * %s)] = 0.0f;", x->tile, zr, segs, zr, segs,
       P->lp, zs, P->off, P->lo, zs, zs, P->lc);
  line(E, depth + 1, "}");
  line(E, depth, "}");
  /* The fragments' m offsets: rows g and g + 8 of the warp's (a row past the output reads the last). */
  line(E, depth, "int %s[2];", P->mp);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < 2; %s++) {", E->v, E->v, E->v);
  const char *pm = fresh(E, "pm"), *pr = fresh(E, "prow");
  line(E, depth + 1, "const int %s = min(%s + %s + %s + %s * 8, %s - 1), %s = kr_div(%s, %s);", pm, E->m0, E->wrow0, E->gq, E->v, M,
       pr, pm, qdiv);
  line(E, depth + 1, "%s[%s] = (%s - %s) * %s + %s + %s * (%s - %s * (%s));", P->mp, E->v, pr, P->rf, P->lp, P->off, P->cqv, pm, pr, Q);
  line(E, depth, "}");
}

/* In the table's fill for the k tile at `k_start`: its k rows' parts, one entry per k row, into rtab's
 * slot `slot`: the row's index part, its comparisons' k parts, and whether the row exists. */
static void patch_rtab_fill(Emit *E, int depth, const char *k_start, const char *slot) {
  Patch *P = &E->pt;
  if (!P->on) return;
  const KrNest *n = E->n;
  const char *S = axis_extent(&n->axes.data[P->s]);
  const char *te = fresh(E, "te"), *kr = fresh(E, "krow");
  line(E, depth, "for (int %s = (%s + 64) %% %s; %s < %s; %s += %s) {", te, E->tid, E->NT, te, P->nkmax, te, E->NT);
  line(E, depth + 1, "const int %s = kr_div(%s, %s) + %s;", kr, k_start, fastdiv(E, S), te);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  set_role_outer(E, value, 2, kr, "0");
  KrBuf body = {0};
  kr_buf_printf(&body, "%s[%s][%s][0] = %s;\n", P->rtab, slot, te, kr_nest_form_text(n, P->krow, E->a));
  for (size_t j = 0; j < 2; j++)
    kr_buf_printf(&body, "%s[%s][%s][%zu] = %s;\n", P->rtab, slot, te, j + 1,
                  j < P->rcols.len ? kr_nest_form_text(n, P->rcols.data[j], E->a) : "0");
  kr_buf_printf(&body, "%s[%s][%s][3] = %s < %s;\n", P->rtab, slot, te, kr, outer_extent(E, 2));
  scoped(E, depth + 1, value, body.data);
  kr_buf_free(&body);
  line(E, depth, "}");
}

/* The loads of x's k tile at `k_start` into buffer `buf` as patches, under `if (x_use)`: the
 * fragments' k offsets of the tile (ftab), then the thread's 16-byte column of each k row. */
static void patch_load(Emit *E, int depth, const char *k_start, const char *buf) {
  Patch *P = &E->pt;
  const Staged *x = E->wr;
  const char *S = axis_extent(&E->n->axes.data[P->s]);
  const char *sdiv = fastdiv(E, S);
  const char *te = fresh(E, "te"), *pk = fresh(E, "pk"), *pkr = fresh(E, "pkr");
  line(E, depth, "// krewrite implicit_gemm: the k tile's patch rows, and where its fragments' k parts sit in them");
  /* by the block's last warp (and the rtab by the one before it): the others' work is the same, warp 0 had both */
  line(E, depth, "for (int %s = (%s + 32) %% %s; %s < %s; %s += %s) {", te, E->tid, E->NT, te, E->BK, te, E->NT);
  line(E, depth + 1, "const int %s = %s + %s, %s = kr_div(%s, %s);", pk, k_start, te, pkr, pk, sdiv);
  line(E, depth + 1, "%s%s[%s %% 4][%s / 4] = %s < %s ? (%s - kr_div(%s, %s)) * %s * %s + %s * (%s - %s * (%s)) : 0;", P->ftab, buf,
       te, te, pk, E->k_end, pkr, k_start, sdiv, P->nr, P->lp, P->csv, pk, pkr, S);
  line(E, depth, "}");
  line(E, depth, "if (%s) {", P->pok);
  const char *ks = fresh(E, "ks"), *rv = fresh(E, "rv"), *in = fresh(E, "in");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++) {", ks, ks, P->nkmax, ks);
  line(E, depth + 2, "const int4 %s = *reinterpret_cast<const int4 *>(&%s[%s][%s][0]);", rv, P->rtab, E->tslot, ks);
  KrBuf g = {0};
  kr_buf_printf(&g, "%s.w != 0", rv);
  for (size_t j = 0; j < P->seg_m.len; j++) {
    int col = P->seg_col.data[j];
    if (col < 0) kr_buf_printf(&g, " && %s >= 0", P->seg_name.data[j]);
    else kr_buf_printf(&g, " && %s %s %s.%c >= 0", P->seg_name.data[j], P->seg_sign.data[j] > 0 ? "+" : "-", rv, "xyzw"[col]);
  }
  line(E, depth + 2, "const bool %s = %s;", in, g.data);
  kr_buf_free(&g);
  line(E, depth + 2, "__pipeline_memcpy_async(&%s%s[0][0] + %s * %s * %s + %s, &%s[%s ? %s + %s.x : 0], 16, %s ? 0 : 16);", x->tile,
       buf, ks, P->nr, P->lp, P->pdst, x->array, in, P->psrc, rv, in);
  line(E, depth + 1, "}");
  line(E, depth, "}");
}

/* The 16-byte copy of a group of 4 elements from `ref` into the tile at `dst`: cp.async when double
 * buffered, else a float4 copy; an fp32 operand lowered to fp16 or bf16 (tensor_core) is loaded as a
 * float4 and stored converted, two half2 (or bfloat162) stores. */
static bool is_f32(const char *t);
static bool is_f16(const char *t);
static bool is_bf16(const char *t);

/* The elements of an operand in one 16-byte group: 4 of a 4-byte type, 8 of a 2-byte one. */
static int group_width(const Emit *E, const Staged *st) { return (int)(16 / elem_bytes(E->n, st->array)); }

static void emit_group_copy(Emit *E, int depth, const Staged *st, const char *dst, const char *ref) {
  KrMma m = E->s->mma;
  if ((m == KR_MMA_FP16 || m == KR_MMA_BF16) && is_f32(st->type)) {
    const char *pair = m == KR_MMA_FP16 ? "__half2" : "__nv_bfloat162";
    const char *conv = m == KR_MMA_FP16 ? "__floats2half2_rn" : "__floats2bfloat162_rn";
    line(E, depth, "{");
    line(E, depth + 1, "const float4 %s = *reinterpret_cast<const float4 *>(&%s);", E->xv, ref);
    line(E, depth + 1, "reinterpret_cast<%s *>(&%s)[0] = %s(%s.x, %s.y);", pair, dst, conv, E->xv, E->xv);
    line(E, depth + 1, "reinterpret_cast<%s *>(&%s)[1] = %s(%s.z, %s.w);", pair, dst, conv, E->xv, E->xv);
    line(E, depth, "}");
  } else if (E->s->stages > 1) {
    line(E, depth, "__pipeline_memcpy_async(&%s, &%s, 16);", dst, ref);
  } else {
    line(E, depth, "*reinterpret_cast<float4 *>(&%s) = *reinterpret_cast<const float4 *>(&%s);", dst, ref);
  }
}

/* A staged operand whose tile rows are contiguous in memory (along its output axis; along k for a
 * k-major tile): groups of 4 elements copied as 16 bytes when the group lies inside the bounds and
 * the check at the top of the kernel found the groups aligned, element by element otherwise. */
static void emit_load_vec(Emit *E, int depth, const Staged *st, const char *k_start, const char *buf, bool inside) {
  const KrNest *n = E->n;
  const char *out = st->kind == OP_M ? E->BM : E->BN, *o0 = st->kind == OP_M ? E->m0 : E->n0;
  int oax = st->kind == OP_M ? E->c.m : E->c.n;
  const char *mm = E->mm, *kk = E->kk;
  /* The group runs along `gax` from `g0 + gi`; the other axis is at `r0 + ri`. */
  int gax = st->kmaj ? E->c.k : oax, rax = st->kmaj ? oax : E->c.k;
  const char *g0 = st->kmaj ? k_start : o0, *r0 = st->kmaj ? o0 : k_start;
  const char *gi = st->kmaj ? kk : mm, *ri = st->kmaj ? mm : kk;
  const char *glen = st->kmaj ? E->BK : out, *rlen = st->kmaj ? out : E->BK;
  int g = group_width(E, st);   /* elements in 16 bytes of the operand */
  long count = (long)E->s->bk * ((st->kind == OP_M ? E->s->bm : E->s->bn) / g);
  coop_loop(E, depth, count, kr_arena_printf(E->a, "%s * (%s / %d)", rlen, glen, g));
  const char *quo, *rem;
  long gl = st->kmaj ? E->s->bk : st->kind == OP_M ? E->s->bm : E->s->bn;
  split_e(E, count, kr_arena_printf(E->a, "%s / %d", glen, g), gl / g, &quo, &rem);
  line(E, depth + 1, "const int %s = (%s) * %d, %s = %s;", gi, rem, g, ri, quo);
  const char *ref = node_text(E, st->ref->node), *guard = load_guard(E, &st->ref->index);
  const char *dst = st->kmaj ? kmaj_at(E, st, buf, mm, kk) : kr_arena_printf(E->a, "%s%s[%s][%s]", st->tile, buf, kk, mm);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  value[rax] = kr_arena_printf(E->a, "%s + %s", r0, ri);
  if (inside) {   /* the whole tile is inside the bounds and the groups are aligned */
    value[gax] = kr_arena_printf(E->a, "%s + %s", g0, gi);
    scope_decls(E, depth + 1, value, ref);
    emit_group_copy(E, depth + 1, st, dst, ref);
    line(E, depth, "}");
    return;
  }
  const char *full = kr_arena_printf(E->a, "%s_full", st->array);
  line(E, depth + 1, "bool %s = %s;", full, st->vec_ok);
  KrBuf body = {0};
  kr_buf_printf(&body, "%s %s", ref, guard);
  for (int end = 0; end < 2; end++) {   /* the group's first and last element inside the guards */
    value[gax] = kr_arena_printf(E->a, "%s + %s%s", g0, gi, end ? kr_arena_printf(E->a, " + %d", g - 1) : "");
    line(E, depth + 1, "{");
    scope_decls(E, depth + 2, value, guard);
    line(E, depth + 2, "%s = %s && (%s);", full, full, guard);
    line(E, depth + 1, "}");
  }
  line(E, depth + 1, "if (%s) {", full);
  value[gax] = kr_arena_printf(E->a, "%s + %s", g0, gi);
  scope_decls(E, depth + 2, value, ref);
  emit_group_copy(E, depth + 2, st, dst, ref);
  line(E, depth + 1, "} else {");
  line(E, depth + 2, "for (int %s = 0; %s < %d; %s++) {", E->v, E->v, g, E->v);
  value[gax] = kr_arena_printf(E->a, "%s + %s + %s", g0, gi, E->v);
  scope_decls(E, depth + 3, value, body.data);
  if (st->kmaj)
    line(E, depth + 3, "%s = (%s) ? %s : (%s)0;", kmaj_at(E, st, buf, mm, kr_arena_printf(E->a, "%s + %s", kk, E->v)), guard,
         ref, st->type);
  else
    line(E, depth + 3, "%s%s[%s][%s + %s] = (%s) ? %s : (%s)0;", st->tile, buf, kk, mm, E->v, guard, ref, st->type);
  line(E, depth + 2, "}");
  line(E, depth + 1, "}");
  line(E, depth, "}");
  kr_buf_free(&body);
}

static void emit_loads_as(Emit *E, int depth, const char *k_start, const char *buf, bool inside) {
  for (int i = 0; i < E->nst; i++) {
    if (E->st[i].vec) emit_load_vec(E, depth, &E->st[i], k_start, buf, inside);
    else emit_load(E, depth, &E->st[i], k_start, buf, inside);
  }
}

/* The staged loads of one k tile. A tile that lies wholly inside the bounds, with its 16-byte
 * groups aligned, is loaded without a guard per element: most tiles of a large problem are such
 * tiles, and the per-element guards and their zero fills are a good part of the loads'
 * instructions. The bounds are checked at the first and the last element of each staged operand's
 * tile, which covers the tile because every guard of one axis is a linear comparison (nest.h),
 * true on an interval of that axis. */
static void emit_loads(Emit *E, int depth, const char *k_start, const char *buf) {
  const KrNest *n = E->n;
  if (E->gather) {   /* gathered tiles: no interval covers them; each element is guarded */
    if (!E->table) emit_loads_as(E, depth, k_start, buf, false);
    for (int i = 0; E->table && i < E->nst; i++) {
      if (E->pt.on && &E->st[i] == E->wr) {
        line(E, depth, "if (%s) {", E->pt.use);
        patch_load(E, depth + 1, k_start, buf);
        line(E, depth, "} else {");
        emit_load_table(E, depth + 1, &E->st[i], k_start, buf);
        line(E, depth, "}");
      } else {
        emit_load_table(E, depth, &E->st[i], k_start, buf);
      }
    }
    return;
  }
  const char *in = fresh(E, "inside");
  line(E, depth, "bool %s = true;", in);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  for (int i = 0; i < E->nst; i++) {
    const Staged *st = &E->st[i];
    if (st->vec) line(E, depth, "%s = %s && %s;", in, in, st->vec_ok);
    const char *guard = load_guard(E, &st->ref->index);
    for (int end = 0; end < 2; end++) {
      if (st->kind == OP_M) value[E->c.m] = kr_arena_printf(E->a, "%s + %s", E->m0, end ? kr_arena_printf(E->a, "%s - 1", E->BM) : "0");
      if (st->kind == OP_N) value[E->c.n] = kr_arena_printf(E->a, "%s + %s", E->n0, end ? kr_arena_printf(E->a, "%s - 1", E->BN) : "0");
      value[E->c.k] = kr_arena_printf(E->a, "%s + %s", k_start, end ? kr_arena_printf(E->a, "%s - 1", E->BK) : "0");
      line(E, depth, "{");
      scope_decls(E, depth + 1, value, guard);
      line(E, depth + 1, "%s = %s && (%s);", in, in, guard);
      line(E, depth, "}");
    }
  }
  line(E, depth, "if (%s) {", in);
  emit_loads_as(E, depth + 1, k_start, buf, true);
  line(E, depth, "} else {");
  emit_loads_as(E, depth + 1, k_start, buf, false);
  line(E, depth, "}");
}

/* True when `decl` declares index locals of the loop body (nest->loop_derived) that `text` does not
 * use: the staged loads computed them, the update need not. */
static bool index_temp_unused(Emit *E, TSNode decl, const char *text) {
  bool index = false;
  for (size_t i = 0; i < E->n->loop_derived.len; i++) index |= ts_node_eq(E->n->loop_derived.data[i], decl);
  return index && !declares_used(E, decl, text);
}

/* True when `text` uses a local the loop body declares as an index (nest->loop_derived). */
static bool index_temps_used(Emit *E, const char *text) {
  for (size_t i = 0; i < E->n->loop_derived.len; i++)
    if (declares_used(E, E->n->loop_derived.data[i], text)) return true;
  return false;
}

/* The update of the accumulators for one kk, over the thread's TM x TN outputs. */
static void emit_update(Emit *E, int depth, const char *k_start, const char *buf) {
  const KrNest *n = E->n;
  for (int i = 0; i < E->nst; i++) {
    const Staged *st = &E->st[i];
    if (st->kind == OP_K) continue;
    const char *cnt = st->kind == OP_M ? E->TM : E->TN, *ix = st->kind == OP_M ? E->ia : E->ib;
    const char *base = st->kind == OP_M ? E->tm0 : E->tn0;
    line(E, depth, "%s %s[%s];", st->type, st->reg, cnt);
    line(E, depth, "#pragma unroll");
    line(E, depth, "for (int %s = 0; %s < %s; %s++) %s[%s] = %s%s[%s][%s];", ix, ix, cnt, ix, st->reg, ix,
         st->tile, buf, E->kk, tile_offset(E, st->kind == OP_M, ix));
    (void)base;
  }
  Subs subs = {0};
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (!r->in_loop) continue;
    const Staged *st = NULL;
    size_t first = first_same(n, i, E->a);
    for (int j = 0; j < E->nst; j++)
      if (E->st[j].ref == &n->refs.data[first]) st = &E->st[j];
    if ((int)i == n->acc_ref) sub_add(E, &subs, r->node, kr_arena_printf(E->a, "%s[%s][%s]", E->acc, E->ia, E->ib));
    else if (st && st->kind == OP_M) sub_add(E, &subs, r->node, kr_arena_printf(E->a, "%s[%s]", st->reg, E->ia));
    else if (st && st->kind == OP_N) sub_add(E, &subs, r->node, kr_arena_printf(E->a, "%s[%s]", st->reg, E->ib));
    else if (st) sub_add(E, &subs, r->node, kr_arena_printf(E->a, "%s%s[%s]", st->tile, buf, E->kk));
    else sub_add(E, &subs, r->node, kr_arena_printf(E->a, "((%s) ? %s : 0)", load_guard(E, &r->index), node_text(E, r->node)));
  }
  if (n->acc) {   /* the local accumulator's uses in the update */
    TSNode e = ts_node_named_child(n->update, 0);
    TSNode left = ts_node_child_by_field_name(e, "left", 4);
    sub_add(E, &subs, left, kr_arena_printf(E->a, "%s[%s][%s]", E->acc, E->ia, E->ib));
    TSNode right = ts_node_child_by_field_name(e, "right", 5);
    /* `acc = acc + v` / `acc = fmaxf(acc, v)`: the accumulator inside the right side too */
    KrVec(TSNode) stack = {0};
    kr_vec_push(E->a, &stack, right);
    while (stack.len) {
      TSNode x = stack.data[--stack.len];
      if (ts_node_symbol(x) == E->t->sym.identifier && kr_node_text_is(E->t, x, n->acc))
        sub_add(E, &subs, x, kr_arena_printf(E->a, "%s[%s][%s]", E->acc, E->ia, E->ib));
      for (uint32_t c = 0; c < ts_node_named_child_count(x); c++) kr_vec_push(E->a, &stack, ts_node_named_child(x, c));
    }
  }
  KrBuf body = {0};
  KrVec(const char *) stmts = {0};
  const char *upd = splice(E, n->update, &subs);
  for (size_t i = 0; i < n->temps.len; i++)
    if (!index_temp_unused(E, n->temps.data[i], upd)) kr_vec_push(E->a, &stmts, splice(E, n->temps.data[i], &subs));
  kr_vec_push(E->a, &stmts, upd);
  for (size_t i = 0; i < stmts.len; i++) kr_buf_printf(&body, "%s\n", stmts.data[i]);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", E->ia, E->ia, E->TM, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++) {", E->ib, E->ib, E->TN, E->ib);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  set_role(E, value, 0, kr_arena_printf(E->a, "%s + %s", E->m0, tile_offset(E, true, E->ia)));
  set_role(E, value, 1, kr_arena_printf(E->a, "%s + %s", E->n0, tile_offset(E, false, E->ib)));
  set_role(E, value, 2, kr_arena_printf(E->a, "%s + %s", k_start, E->kk));
  scope_decls(E, depth + 2, value, body.data);
  for (size_t i = 0; i < stmts.len; i++) line(E, depth + 2, "%s", stmts.data[i]);
  line(E, depth + 1, "}");
  line(E, depth, "}");
  kr_buf_free(&body);
}

/* One k tile's math: the kk loop over the tile in buffer `buf`. */
static void emit_mma_math(Emit *E, int depth, const char *buf);
static void emit_ptx_math(Emit *E, int depth, const char *buf);
static void emit_wg_math(Emit *E, int depth, const char *buf);
static void emit_wg_k_loop(Emit *E, int depth);
static void emit_prefetch_prologue(Emit *E, int depth, const char *buf);
static void emit_next_loads(Emit *E, int depth);
static void emit_ptx_head(Emit *E, int depth);
static void emit_warp_origin(Emit *E, int depth);
static void emit_ptx_epilogue(Emit *E, int depth);
static void emit_wg_head(Emit *E, int depth);
static void emit_wg_epilogue(Emit *E, int depth);

static void emit_tile_math(Emit *E, int depth, const char *buf) {
  if (E->s->mma) {
    if (E->s->mma_wg) emit_wg_math(E, depth, buf);
    else if (E->s->mma_ptx) emit_ptx_math(E, depth, buf);
    else emit_mma_math(E, depth, buf);
    return;
  }
  const KrNestAxis *k = &E->n->axes.data[E->c.k];
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", E->kk, E->kk, E->BK, E->kk);
  int d = depth + 1;
  if (E->guard_k) {
    line(E, d, "if (%s + %s < %s) {", E->k0, E->kk, k->hi);
    d++;
  }
  emit_update(E, d, E->k0, buf);
  if (E->guard_k) line(E, d - 1, "}");
  line(E, depth, "}");
}

static void emit_k_loop(Emit *E, int depth) {
  const char *lo = E->k_lo;
  if (E->s->stages == 1) {
    if (E->tab) {   /* the table's first tile, before the loop; each iteration fills the next one's */
      emit_table_fill(E, depth, lo, "0");
      line(E, depth, "__syncthreads();");
    }
    line(E, depth, "for (int %s = %s; %s < %s; %s += %s) {", E->k0, lo, E->k0, E->k_end, E->k0, E->BK);
    if (E->tab) {
      E->tslot = fresh(E, "slot");
      line(E, depth + 1, "const int %s = ((%s - (%s)) / %s) & 1;", E->tslot, E->k0, lo, E->BK);
    }
    line(E, depth + 1, "// krewrite tile: the k tile of the staged operands, loaded cooperatively");
    emit_loads(E, depth + 1, E->k0, "");
    if (E->tab)
      emit_table_fill(E, depth + 1, kr_arena_printf(E->a, "%s + %s", E->k0, E->BK), kr_arena_printf(E->a, "%s ^ 1", E->tslot));
    if (E->s->mma_wg) line(E, depth + 1, "kr_fence_async();");
    line(E, depth + 1, "__syncthreads();");
    emit_tile_math(E, depth + 1, "");
    line(E, depth + 1, "__syncthreads();");
    line(E, depth, "}");
    return;
  }
  if (E->s->mma_wg && E->s->stages >= 3) {
    emit_wg_k_loop(E, depth);
    return;
  }
  /* Double buffered: the loads of tile kt + STAGES - 1 overlap the math of tile kt. Under the index
   * table, the loads of a tile read the table slot its predecessor's step filled, behind a barrier. */
  const char *buf = kr_arena_printf(E->a, "[%s %% %s]", E->kt, E->STAGES);
  emit_prefetch_prologue(E, depth, buf);
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", E->kt, E->kt, E->ntiles, E->kt);
  emit_next_loads(E, depth + 1);
  line(E, depth + 1, "__pipeline_wait_prior(%s - 1);", E->STAGES);
  if (E->s->mma_wg) line(E, depth + 1, "kr_fence_async();");
  line(E, depth + 1, "__syncthreads();");
  KrBuf math = {0}, *saved_o = E->o;
  E->o = &math;
  emit_tile_math(E, depth + 1, buf);
  E->o = saved_o;
  if (uses(math.data, E->k0)) line(E, depth + 1, "const int %s = (%s) + %s * %s;", E->k0, E->k_lo, E->kt, E->BK);
  kr_buf_append(E->o, math.data, math.len);
  kr_buf_free(&math);
  line(E, depth + 1, "__syncthreads();");
  line(E, depth, "}");
}

/* The number of k tiles, the table's first tile, and the loads of the first STAGES - 1 k tiles. */
static void emit_prefetch_prologue(Emit *E, int depth, const char *buf) {
  const char *lo = E->k_lo;
  if (E->k_tiles) line(E, depth, "const int %s = %s;", E->ntiles, E->k_tiles);
  else line(E, depth, "const int %s = ((%s) - (%s) + %s - 1) / %s;", E->ntiles, E->k_end, lo, E->BK, E->BK);
  if (E->tab) {
    emit_table_fill(E, depth, lo, "0");
    line(E, depth, "__syncthreads();");
  }
  line(E, depth, "// krewrite double_buffer: prefetch the first %s - 1 k tiles", E->STAGES);
  line(E, depth, "for (int %s = 0; %s < %s - 1; %s++) {", E->kt, E->kt, E->STAGES, E->kt);
  line(E, depth + 1, "if (%s < %s) {", E->kt, E->ntiles);
  line(E, depth + 2, "const int %s = (%s) + %s * %s;", E->k0, lo, E->kt, E->BK);
  E->tslot = kr_arena_printf(E->a, "%s & 1", E->kt);
  emit_loads(E, depth + 2, E->k0, buf);
  line(E, depth + 1, "}");
  if (E->tab) {
    emit_table_fill(E, depth + 1, kr_arena_printf(E->a, "(%s) + (%s + 1) * %s", lo, E->kt, E->BK),
                    kr_arena_printf(E->a, "(%s + 1) & 1", E->kt));
    line(E, depth + 1, "__syncthreads();");
  }
  line(E, depth + 1, "__pipeline_commit();");
  line(E, depth, "}");
}

/* In iteration kt of the k loop: the loads of tile kt + STAGES - 1 (and the table's next tile), one
 * commit group whether or not there is such a tile. */
static void emit_next_loads(Emit *E, int depth) {
  const char *lo = E->k_lo;
  depth--;   /* written for the loop body's depth + 1 */
  line(E, depth + 1, "{");
  line(E, depth + 2, "// krewrite double_buffer: start the loads of tile %s + %s - 1", E->kt, E->STAGES);
  line(E, depth + 2, "const int %s = %s + %s - 1;", E->e, E->kt, E->STAGES);
  line(E, depth + 2, "if (%s < %s) {", E->e, E->ntiles);
  const char *nb = kr_arena_printf(E->a, "[(%s + %s - 1) %% %s]", E->kt, E->STAGES, E->STAGES);
  const char *nk = kr_arena_printf(E->a, "((%s) + (%s + %s - 1) * %s)", lo, E->kt, E->STAGES, E->BK);
  const char *saved = E->e;
  E->tslot = kr_arena_printf(E->a, "(%s + %s - 1) & 1", E->kt, E->STAGES);
  E->e = fresh(E, "e2");
  emit_loads(E, depth + 3, nk, nb);
  E->e = saved;
  line(E, depth + 2, "}");
  if (E->tab)
    emit_table_fill(E, depth + 2, kr_arena_printf(E->a, "((%s) + (%s + %s) * %s)", lo, E->kt, E->STAGES, E->BK),
                    kr_arena_printf(E->a, "(%s + %s) & 1", E->kt, E->STAGES));
  line(E, depth + 2, "__pipeline_commit();");
  line(E, depth + 1, "}");
}

/* One output's statements under the kernel's own guard: the prologue, the combine of `accv` into the
 * accumulator, the epilogue, with the axes m and n at `mval` and `nval`. */
static void emit_output_at(Emit *E, int depth, const char *accv, const char **value);

static void emit_output(Emit *E, int depth, const char *accv, const char *mval, const char *nval) {
  const char **value = kr_arena_alloc(E->a, (E->n->axes.len + 1) * sizeof *value);
  set_role(E, value, 0, mval);
  set_role(E, value, 1, nval);
  emit_output_at(E, depth, accv, value);
}

/* The same with the axes' values given (value[axis]). */
static void emit_output_at(Emit *E, int depth, const char *accv, const char **value) {
  const KrNest *n = E->n;
  KrVec(const char *) st = {0};
  KrBuf cond = {0};
  for (size_t i = 0; i < n->guards.len; i++) kr_buf_printf(&cond, "%s%s", i ? " && " : "", n->guards.data[i].text);
  if (n->acc) kr_vec_push(E->a, &st, splice(E, n->acc_decl, &E->epi));
  for (size_t i = 0; i < n->prologue.len; i++)
    if (!ts_node_eq(n->prologue.data[i], n->acc_decl)) kr_vec_push(E->a, &st, splice(E, n->prologue.data[i], &E->epi));
  const char *acc = n->acc ? n->acc : node_text(E, n->refs.data[n->acc_ref].node);
  if (n->op == KR_RED_SUM) kr_vec_push(E->a, &st, kr_arena_printf(E->a, "%s += %s;", acc, accv));
  else kr_vec_push(E->a, &st, kr_arena_printf(E->a, "%s = %s(%s, %s);", acc, n->combine_fn, acc, accv));
  for (size_t i = 0; i < n->epilogue.len; i++)
    if (!E->pool_tail || !ts_node_eq(n->epilogue.data[i], E->pool_call)) kr_vec_push(E->a, &st, splice(E, n->epilogue.data[i], &E->epi));
  if (E->pool_tail) kr_vec_push(E->a, &st, E->pool_tail);
  KrBuf body = {0};
  kr_buf_printf(&body, "%s\n", cond.data ? cond.data : "");
  for (size_t i = 0; i < st.len; i++) kr_buf_printf(&body, "%s\n", st.data[i]);
  scope_decls(E, depth, value, body.data);
  int d = depth;
  if (cond.len) line(E, d++, "if (%s) {", cond.data);
  for (size_t i = 0; i < st.len; i++) line(E, d, "%s", st.data[i]);
  if (cond.len) line(E, depth, "}");
  kr_buf_free(&body);
  kr_buf_free(&cond);
}

static void emit_epilogue(Emit *E, int depth) {
  line(E, depth, "// krewrite tile: each thread's outputs, under the kernel's own guard");
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", E->ia, E->ia, E->TM, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++) {", E->ib, E->ib, E->TN, E->ib);
  emit_output(E, depth + 2, kr_arena_printf(E->a, "%s[%s][%s]", E->acc, E->ia, E->ib),
              kr_arena_printf(E->a, "%s + %s", E->m0, tile_offset(E, true, E->ia)),
              kr_arena_printf(E->a, "%s + %s", E->n0, tile_offset(E, false, E->ib)));
  line(E, depth + 1, "}");
  line(E, depth, "}");
}

/* ---- tensor_core: WMMA fragments fed from the staged tiles ----------------------------------------------------- */

static const char *accumulator_type(const KrNest *n);

static const char *const mma_names[5] = {"none", "tf32", "fp16", "bf16", "3xtf32"};

static bool is_f32(const char *t) { return t && strcmp(t, "float") == 0; }
static bool is_f16(const char *t) { return t && (strcmp(t, "half") == 0 || strcmp(t, "__half") == 0); }
static bool is_bf16(const char *t) { return t && strcmp(t, "__nv_bfloat16") == 0; }

/* The element type of the fragments of operands staged as `type`, and of their shared tiles (an
 * fp32 operand lowered to fp16 or bf16 is converted as it is staged). */
static const char *mma_frag_type(KrMma m) {
  return m == KR_MMA_FP16 ? "__half" : m == KR_MMA_BF16 ? "__nv_bfloat16" : "nvcuda::wmma::precision::tf32";
}
static const char *mma_tile_type(KrMma m, const char *type) {
  return m == KR_MMA_FP16 ? "__half" : m == KR_MMA_BF16 ? "__nv_bfloat16" : type;
}

static size_t tile_elem_bytes(const KrSchedule *s, const KrNest *n, const char *array) {
  return s->mma == KR_MMA_FP16 || s->mma == KR_MMA_BF16 ? 2 : elem_bytes(n, array);
}

/* The shared tile of one staged operand: its rows and their length (elements, padding included)
 * per stage, and the element size. Under tensor_core an operand contiguous along k gets a k-major
 * tile ([outer][BK + pad]), every other a [BK][outer + pad] one. Pads are 16 bytes, so that rows stay
 * 16-byte aligned (vector loads, and the fragments' loads). */
static void tile_dims(const KrSchedule *s, const KrNest *n, const KrContraction *c, const KrNestRef *r, OpKind kind,
                      size_t *rows, size_t *ld, size_t *elem) {
  size_t e = tile_elem_bytes(s, n, r->array);
  /* Pads of 16 bytes, 32 for a 4-byte tile indexed [k][outer] under tensor_core: then the rows of
   * the tf32 fragments' loads (k rows read 8 columns apart) fall in distinct banks. */
  size_t pad = s->pad ? 16 / e : 0;
  size_t pad_outer = s->pad && s->mma && e == 4 ? 8 : pad;
  size_t outer = kind == OP_M ? (size_t)s->bm : kind == OP_N ? (size_t)s->bn : 1;
  bool kmaj = s->mma && kind != OP_K && k_unit(n, c, &r->index);
  if (kind == OP_K) *rows = 1, *ld = (size_t)s->bk;
  else if (kmaj) *rows = outer, *ld = (size_t)s->bk + (s->mma_wg ? 0 : pad);   /* wgmma: swizzled, unpadded */
  else *rows = (size_t)s->bk, *ld = outer + (s->mma ? pad_outer : (s->pad ? 4 : 0));
  *elem = e;
}

/* The C tile the fragments leave the accumulators in: BM x (BN + 4) floats. */
static size_t mma_ctile_bytes(const KrSchedule *s) { return (size_t)s->bm * (size_t)(s->bn + 4) * 4; }

/* The thread tile the outputs are handed out by after the fragments (and by split_k's combine and
 * the epilogue): TM x TN outputs for each of the warps' threads, TN 4 where it can be, so that a
 * thread stores 4 consecutive outputs. False when no such tile covers the block tile. */
bool kr_schedule_mma_thread_tile(const KrSchedule *s, int *tm, int *tn) {
  int threads = (s->bm / s->wm) * (s->bn / s->wn) * 32;
  static const int tries[] = {4, 2, 1, 8, 16};
  for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
    int t = tries[i];
    if (t > s->bn || s->bn % t) continue;
    int cols = s->bn / t;
    if (threads % cols) continue;
    int rows = threads / cols;
    if (rows > s->bm || s->bm % rows) continue;
    *tm = s->bm / rows, *tn = t;
    return true;
  }
  return false;
}

/* The checks of a tensor-core schedule that need only the record: shapes, warps, budgets. */
static const char *mma_shape_check(const KrSchedule *s, KrArena *a) {
  const char *p = mma_names[s->mma];
  bool tf32 = s->mma == KR_MMA_TF32 || s->mma == KR_MMA_3XTF32;
  if (s->mma_ptx && (s->mma_m != 16 || s->mma_n != 8 || s->mma_k != (tf32 ? 8 : 16)))
    return kr_arena_printf(a, "tensor_core: api mma computes %s in m16n8k%d products, not %d x %d x %d", p, tf32 ? 8 : 16,
                           s->mma_m, s->mma_n, s->mma_k);
  bool ok = s->mma_ptx || tf32 ? s->mma_m == 16 && s->mma_n == (s->mma_ptx ? 8 : 16) && s->mma_k == (tf32 ? 8 : 16)
                 : s->mma_k == 16 && ((s->mma_m == 16 && s->mma_n == 16) || (s->mma_m == 32 && s->mma_n == 8) ||
                                      (s->mma_m == 8 && s->mma_n == 32));
  if (!ok)
    return kr_arena_printf(a, "tensor_core: precision %s has no WMMA shape %d x %d x %d (%s)", p, s->mma_m, s->mma_n,
                           s->mma_k, tf32 ? "tf32 has 16 x 16 x 8" : "fp16 and bf16 have 16 x 16 x 16, 32 x 8 x 16 and 8 x 32 x 16");
  if (s->wm <= 0 || s->wn <= 0 || s->wm % s->mma_m || s->wn % s->mma_n)
    return kr_arena_printf(a, "tensor_core: the warp tile %d x %d is not a whole number of %d x %d fragments", s->wm,
                           s->wn, s->mma_m, s->mma_n);
  if (s->bm % s->wm || s->bn % s->wn)
    return kr_arena_printf(a, "tensor_core: the warp tile %d x %d does not divide the block tile %d x %d", s->wm, s->wn,
                           s->bm, s->bn);
  if (s->bk % s->mma_k)
    return kr_arena_printf(a, "tensor_core: the k tile %d is not a multiple of the shape's k step %d", s->bk, s->mma_k);
  int threads = (s->bm / s->wm) * (s->bn / s->wn) * 32;
  if (threads > KR_SM90_MAX_THREADS)
    return kr_arena_printf(a, "tensor_core: a %d x %d block tile in warp tiles of %d x %d needs %d threads; a block has "
                              "at most %d", s->bm, s->bn, s->wm, s->wn, threads, KR_SM90_MAX_THREADS);
  if (s->wm * s->wn / 32 > KR_SM90_MAX_ACC_REGS)
    return kr_arena_printf(a, "tensor_core: a %d x %d warp tile keeps %d accumulators per thread (at most %d)", s->wm,
                           s->wn, s->wm * s->wn / 32, KR_SM90_MAX_ACC_REGS);
  int tm, tn;
  if (!kr_schedule_mma_thread_tile(s, &tm, &tn))
    return kr_arena_printf(a, "tensor_core: the %d threads cannot share the %d x %d block tile's outputs evenly", threads,
                           s->bm, s->bn);
  if (tm != s->tm || tn != s->tn) return "tensor_core: the thread tile was changed after tensor_core (register_tile does "
                                         "not apply to a tensor-core schedule: its warp tile sets the threads)";
  if (s->parts > 1) return "tensor_core: split_k does not combine tensor-core parts yet";
  return NULL;
}

/* The factors of the update's product: the staged m operand's read, the n operand's, and the
 * factors that do not change in the loop (a scale such as alpha, applied to the fragments' sums). */
typedef struct MmaProduct {
  const Staged *a, *b;
  KrVec(const char *) scale;
} MmaProduct;

/* A factor converted to float (`__bfloat162float(A[…])`, `__half2float(…)`, `(float)A[…]`): the
 * converted expression, which the tensor cores take in its own type; else x. */
static TSNode mma_unwrap(Emit *E, TSNode x) {
  for (;;) {
    x = kr_node_strip_parens(E->t, x);
    const char *type = ts_node_type(x);
    if (strcmp(type, "cast_expression") == 0) {
      TSNode t = ts_node_child_by_field_name(x, "type", 4);
      if (ts_node_is_null(t) || strcmp(node_text(E, t), "float") != 0) return x;
      x = ts_node_child_by_field_name(x, "value", 5);
      continue;
    }
    if (strcmp(type, "call_expression") != 0) return x;
    TSNode fn = ts_node_child_by_field_name(x, "function", 8), args = ts_node_child_by_field_name(x, "arguments", 9);
    const char *name = ts_node_is_null(fn) ? "" : node_text(E, fn);
    if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1 ||
        (strcmp(name, "__bfloat162float") != 0 && strcmp(name, "__half2float") != 0))
      return x;
    x = ts_node_named_child(args, 0);
  }
}

/* Reads the update as acc += A[m, k] * B[k, n] (times invariant factors); NULL, or why the tensor
 * cores cannot compute it, with *at the place. */
static const char *mma_product(Emit *E, MmaProduct *p, uint32_t *at) {
  const KrNest *n = E->n;
  *at = ts_node_start_byte(n->update);
  if (n->op != KR_RED_SUM) return "tensor_core: the tensor cores compute sums of products; this reduction is a max or a min";
  TSNode asg = ts_node_named_child(n->update, 0);
  if (kr_node_operator_is(E->t, asg, "-=")) return "tensor_core: the update subtracts (acc -= …); the tensor cores add products";
  size_t value_temps = 0;   /* index temporaries (nest->loop_derived) go with the staged loads */
  for (size_t i = 0; i < n->temps.len; i++) value_temps += !index_temp_unused(E, n->temps.data[i], "");
  if (value_temps) {
    *at = ts_node_start_byte(n->temps.data[0]);
    return "tensor_core: the loop computes a temporary before its update; the tensor cores take an update that "
           "multiplies the staged operands directly (acc += A[…] * B[…])";
  }
  const char *acc_type = accumulator_type(n);
  if (!is_f32(acc_type))
    return kr_arena_printf(E->a, "tensor_core: the accumulator is %s; the tensor cores accumulate in float", acc_type);
  KrNodes factors = {0};
  kr_nest_factors(E->t, n->update_value, E->a, &factors);
  for (size_t f = 0; f < factors.len; f++) {
    TSNode x = mma_unwrap(E, factors.data[f]);
    *at = ts_node_start_byte(x);
    const Staged *st = NULL;
    bool reads = false;
    for (size_t i = 0; i < n->refs.len; i++) {
      const KrNestRef *r = &n->refs.data[i];
      if (!r->in_loop || !kr_node_within(r->node, x)) continue;
      reads = true;
      if (!ts_node_eq(r->node, x)) break;
      size_t first = first_same(n, i, E->a);
      for (int j = 0; j < E->nst; j++)
        if (E->st[j].ref == &n->refs.data[first]) st = &E->st[j];
      if (!st) return kr_arena_printf(E->a, "tensor_core: '%s' is not staged in shared memory (tile's stage); the "
                                            "fragments are loaded from the staged tiles", r->array);
      if (r->cond && !(E->s->implicit && kr_node_within(r->node, n->update_if)))
        return kr_arena_printf(E->a, "tensor_core: the read of '%s' is under a condition in the loop", r->array);
    }
    if (st && st->kind == OP_M && !p->a) { p->a = st; continue; }
    if (st && st->kind == OP_N && !p->b) { p->b = st; continue; }
    if (st) return kr_arena_printf(E->a, "tensor_core: the product has a second factor ('%s') that moves with the same output "
                                         "axis; the tensor cores multiply one operand of the output's rows by one of its "
                                         "columns", st->array);
    if (reads) return kr_arena_printf(E->a, "tensor_core: the factor '%s' reads memory inside an expression; the tensor "
                                            "cores take the staged reads as factors", node_text(E, x));
    const char *text = node_text(E, x);
    for (size_t i = 0; i < n->axes.len; i++)
      if (uses(text, n->axes.data[i].name))
        return kr_arena_printf(E->a, "tensor_core: the factor '%s' depends on '%s'; only the staged operands may change "
                                     "in the loop", text, n->axes.data[i].name);
    if ((n->acc && uses(text, n->acc)))
      return kr_arena_printf(E->a, "tensor_core: the factor '%s' reads the accumulator", text);
    if (index_temps_used(E, text))
      return kr_arena_printf(E->a, "tensor_core: the factor '%s' reads a local of the loop body; only the staged operands "
                                   "may change in the loop", text);
    kr_vec_push(E->a, &p->scale, text);
  }
  *at = ts_node_start_byte(n->update_value);
  if (!p->a || !p->b)
    return "tensor_core: the update is not a product of a staged operand of the output's rows and one of its columns";
  const char *ta = p->a->type, *tb = p->b->type;
  KrMma m = E->s->mma;
  bool f32 = is_f32(ta) && is_f32(tb);
  if ((m == KR_MMA_TF32 || m == KR_MMA_3XTF32) && !f32)
    return kr_arena_printf(E->a, "tensor_core: precision %s takes float operands; '%s' is %s and '%s' is %s", mma_names[m],
                           p->a->array, ta ? ta : "?", p->b->array, tb ? tb : "?");
  if (m == KR_MMA_FP16 && !f32 && !(is_f16(ta) && is_f16(tb)))
    return kr_arena_printf(E->a, "tensor_core: precision fp16 takes float or half operands, both alike; '%s' is %s and "
                                 "'%s' is %s", p->a->array, ta ? ta : "?", p->b->array, tb ? tb : "?");
  if (m == KR_MMA_BF16 && !f32 && !(is_bf16(ta) && is_bf16(tb)))
    return kr_arena_printf(E->a, "tensor_core: precision bf16 takes float or __nv_bfloat16 operands, both alike; '%s' "
                                 "is %s and '%s' is %s", p->a->array, ta ? ta : "?", p->b->array, tb ? tb : "?");
  if ((m == KR_MMA_FP16 || m == KR_MMA_BF16) && f32 && E->s->stages > 1)
    return kr_arena_printf(E->a, "tensor_core: an fp32 operand lowered to %s is converted as it is staged, which cp.async "
                                 "(double_buffer) cannot do; use stages = 1, or operands stored in %s",
                           mma_names[m], mma_names[m]);
  return NULL;
}

/* One operand's fragments of the k step at `kk`: loaded from the tile, and for tf32 rounded to
 * tf32 (3xtf32: the rounded value and the rounded residual, two fragments). */
static void mma_load(Emit *E, int depth, const Staged *st, bool a_side, const char *buf, const char *const *frag) {
  const char *cnt = a_side ? E->FM : E->FN, *ix = a_side ? E->ia : E->ib, *w0 = a_side ? E->wm0 : E->wn0;
  const char *sz = a_side ? E->MM : E->MN;
  const char *ld = st->kmaj ? kr_arena_printf(E->a, "%s + %d", E->BK, st->pad)
                            : kr_arena_printf(E->a, "%s + %d", a_side ? E->BM : E->BN, st->pad);
  const char *at = st->kmaj ? kr_arena_printf(E->a, "&%s%s[%s + %s * %s][%s]", st->tile, buf, w0, ix, sz, E->kk)
                            : kr_arena_printf(E->a, "&%s%s[%s][%s + %s * %s]", st->tile, buf, E->kk, w0, ix, sz);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", ix, ix, cnt, ix);
  line(E, depth + 1, "nvcuda::wmma::load_matrix_sync(%s[%s], %s, %s);", frag[0], ix, at, ld);
  KrMma m = E->s->mma;
  if (m == KR_MMA_TF32 || m == KR_MMA_3XTF32) {
    line(E, depth + 1, "#pragma unroll");
    line(E, depth + 1, "for (int %s = 0; %s < %s[%s].num_elements; %s++) {", E->v, E->v, frag[0], ix, E->v);
    if (m == KR_MMA_TF32) {
      line(E, depth + 2, "%s[%s].x[%s] = nvcuda::wmma::__float_to_tf32(%s[%s].x[%s]);", frag[0], ix, E->v, frag[0], ix, E->v);
    } else {
      line(E, depth + 2, "const float %s = %s[%s].x[%s];", E->xv, frag[0], ix, E->v);
      line(E, depth + 2, "%s[%s].x[%s] = nvcuda::wmma::__float_to_tf32(%s);", frag[0], ix, E->v, E->xv);
      line(E, depth + 2, "%s[%s].x[%s] = nvcuda::wmma::__float_to_tf32(%s - %s[%s].x[%s]);", frag[1], ix, E->v, E->xv,
           frag[0], ix, E->v);
    }
    line(E, depth + 1, "}");
  }
  line(E, depth, "}");
}

/* Whether the schedule claims fp32-grade sums (3xtf32, or 16-bit operands stored so). The tensor
 * cores add into their accumulator rounding toward zero, so a long k loop summed in one fragment
 * drifts (about 5e-5 of the result at k = 4096, all in one direction); these schedules sum each k
 * step's products in a fresh fragment and add it to the total with fp32 adds, rounded to nearest. */
static bool mma_exact(const Emit *E) {
  return E->s->mma == KR_MMA_3XTF32 || (E->s->mma != KR_MMA_TF32 && !is_f32(E->prod->a->type));
}

/* One k tile's math on the tensor cores: per k step, the warp's fragments of both operands, then
 * FM x FN products into the accumulator fragments. 3xtf32 adds the two residual products first,
 * then the product of the rounded values. */
static void emit_mma_math(Emit *E, int depth, const char *buf) {
  const MmaProduct *p = E->prod;
  KrMma m = E->s->mma;
  bool three = m == KR_MMA_3XTF32;
  const char *ft = mma_frag_type(m);
  const char *la = p->a->kmaj ? "row_major" : "col_major", *lb = p->b->kmaj ? "col_major" : "row_major";
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s += %s) {", E->kk, E->kk, E->BK, E->kk, E->MK);
  int d = depth + 1;
  const char *fa[2] = {E->fa, E->fa_lo}, *fb[2] = {E->fb, E->fb_lo};
  for (int h = 0; h < (three ? 2 : 1); h++)
    line(E, d, "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, %s, %s, %s, %s, nvcuda::wmma::%s> %s[%s];", E->MM, E->MN,
         E->MK, ft, la, fa[h], E->FM);
  for (int h = 0; h < (three ? 2 : 1); h++)
    line(E, d, "nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, %s, %s, %s, %s, nvcuda::wmma::%s> %s[%s];", E->MM, E->MN,
         E->MK, ft, lb, fb[h], E->FN);
  if (mma_exact(E))
    line(E, d, "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, %s, %s, %s, float> %s;", E->MM, E->MN, E->MK, E->tf);
  mma_load(E, d, p->a, true, buf, fa);
  mma_load(E, d, p->b, false, buf, fb);
  line(E, d, "#pragma unroll");
  line(E, d, "for (int %s = 0; %s < %s; %s++) {", E->ia, E->ia, E->FM, E->ia);
  line(E, d + 1, "#pragma unroll");
  line(E, d + 1, "for (int %s = 0; %s < %s; %s++) {", E->ib, E->ib, E->FN, E->ib);
  const char *c = kr_arena_printf(E->a, "%s[%s][%s]", E->cf, E->ia, E->ib);
  bool step = mma_exact(E);   /* this step's products in a fresh fragment, added to the total in fp32 */
  const char *t = step ? E->tf : c;
  if (step) line(E, d + 2, "nvcuda::wmma::fill_fragment(%s, 0.0f);", t);
  if (three) {
    line(E, d + 2, "nvcuda::wmma::mma_sync(%s, %s[%s], %s[%s], %s);", t, E->fa_lo, E->ia, E->fb, E->ib, t);
    line(E, d + 2, "nvcuda::wmma::mma_sync(%s, %s[%s], %s[%s], %s);", t, E->fa, E->ia, E->fb_lo, E->ib, t);
  }
  line(E, d + 2, "nvcuda::wmma::mma_sync(%s, %s[%s], %s[%s], %s);", t, E->fa, E->ia, E->fb, E->ib, t);
  if (step) {
    line(E, d + 2, "#pragma unroll");
    line(E, d + 2, "for (int %s = 0; %s < %s.num_elements; %s++) %s.x[%s] += %s.x[%s];", E->v, E->v, t, E->v, c, E->v, t, E->v);
  }
  line(E, d + 1, "}");
  line(E, d, "}");
  line(E, depth, "}");
}

/* The warp's place in the block tile: (wm0, wn0), the first row and column of its WM x WN outputs. */
static void emit_warp_origin(Emit *E, int depth) {
  line(E, depth, "const int %s = (%s / 32 / (%s / %s)) * %s, %s = (%s / 32 %% (%s / %s)) * %s;", E->wm0, E->tid, E->BN,
       E->WN, E->WM, E->wn0, E->tid, E->BN, E->WN, E->WN);
}

/* The accumulator fragments before the k loop: the warp's place in the block tile, and zeros. */
static void emit_mma_head(Emit *E, int depth) {
  const KrSchedule *s = E->s;
  line(E, depth, "// krewrite tensor_core: warp w computes the %s x %s outputs at (%s, %s) as %s x %s fragments of %s x %s, "
       "k steps of %s (%s)", E->WM, E->WN, E->wm0, E->wn0, E->FM, E->FN, E->MM, E->MN, E->MK, mma_names[s->mma]);
  emit_warp_origin(E, depth);
  line(E, depth, "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, %s, %s, %s, float> %s[%s][%s];", E->MM, E->MN, E->MK,
       E->cf, E->FM, E->FN);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++)", E->ia, E->ia, E->FM, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++) nvcuda::wmma::fill_fragment(%s[%s][%s], 0.0f);", E->ib, E->ib, E->FN,
       E->ib, E->cf, E->ia, E->ib);
}

/* After the k loop (which ends at a barrier): the fragments go to a C tile in shared memory and
 * come back as each thread's TM x TN outputs, scaled by the product's invariant factors, for the
 * epilogue (and split_k) as in the SIMT schedule. */
static void emit_mma_tail(Emit *E, int depth, const char *acc_type) {
  const MmaProduct *p = E->prod;
  const char *ct = fresh(E, "c_tile");
  line(E, depth, "// krewrite tensor_core: the fragments through shared memory to each thread's %s x %s outputs", E->TM, E->TN);
  line(E, depth, "float (*%s)[%s + 4] = reinterpret_cast<float (*)[%s + 4]>(%s);", ct, E->BN, E->BN, E->smem);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++)", E->ia, E->ia, E->FM, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++)", E->ib, E->ib, E->FN, E->ib);
  line(E, depth + 2, "nvcuda::wmma::store_matrix_sync(&%s[%s + %s * %s][%s + %s * %s], %s[%s][%s], %s + 4, "
       "nvcuda::wmma::mem_row_major);", ct, E->wm0, E->ia, E->MM, E->wn0, E->ib, E->MN, E->cf, E->ia, E->ib, E->BN);
  line(E, depth, "__syncthreads();");
  KrBuf sc = {0};
  for (size_t i = 0; i < p->scale.len; i++) kr_buf_printf(&sc, "(%s) * ", p->scale.data[i]);
  line(E, depth, "%s %s[%s][%s];", acc_type, E->acc, E->TM, E->TN);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++)", E->ia, E->ia, E->TM, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++) %s[%s][%s] = %s%s[%s][%s];", E->ib, E->ib, E->TN, E->ib, E->acc,
       E->ia, E->ib, sc.data ? sc.data : "", ct, tile_offset(E, true, E->ia), tile_offset(E, false, E->ib));
  kr_buf_free(&sc);
}

/* ---- tensor_core { api = "mma" }: PTX mma.sync fed by ldmatrix ---------------------------------------------- */

/* Lane l of a warp holds, of each 16 x 8 product (PTX ISA, "Matrix fragments for mma.m16n8k8/k16"),
 * with g = l / 4 and t = l % 4: the accumulators at rows g and g + 8, columns 2t and 2t + 1; of a tf32
 * A fragment the elements (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) and of B (t, g), (t + 4, g);
 * of a 16-bit A fragment the pairs at columns 2t and 2t + 8 of rows g and g + 8, of B the pairs at
 * rows 2t and 2t + 8 of column g. ldmatrix hands out 8 x 8 blocks of 16-bit elements (a 4-byte tf32
 * element is two of them) in exactly that order, transposed (.trans) when the tile runs the other
 * way; a tf32 element of a tile running the other way is read with a plain 4-byte load. */

static const char *ptx_mma_name(KrMma m) {
  return m == KR_MMA_BF16 ? "kr_mma_bf16" : m == KR_MMA_FP16 ? "kr_mma_f16" : "kr_mma_tf32";
}

/* An asm statement's n registers %0..%(n-1) in `regs` and their operands in `outs`, each
 * `constraint`(array[i]). */
static void asm_operand_list(KrBuf *regs, KrBuf *outs, int n, const char *constraint, const char *array) {
  for (int i = 0; i < n; i++) {
    kr_buf_printf(regs, "%s%%%d", i ? ", " : "", i);
    kr_buf_printf(outs, "%s\"%s\"(%s[%d])", i ? ", " : "", constraint, array, i);
  }
}

static void ldmatrix_helpers(Emit *E, KrBuf *b);
static void tf32_helper(Emit *E, KrBuf *b);
static void tf32_hi_helper(Emit *E, KrBuf *b);
static void tf32_lo_helper(Emit *E, KrBuf *b);

/* The helper functions the kernel calls, once per file, before the kernel: one per PTX instruction. */
static void ptx_helpers(Emit *E) {
  KrPassCtx *cx = E->cx;
  const char *text = cx->src->text;
  KrBuf b = {0};
  KrMma m = E->s->mma;
  const char *mma = ptx_mma_name(m);
  if (!strstr(text, kr_arena_printf(E->a, "void %s(", mma))) {
    bool tf32 = m == KR_MMA_TF32 || m == KR_MMA_3XTF32;
    const char *type = tf32 ? "m16n8k8.row.col.f32.tf32.tf32.f32" : m == KR_MMA_BF16 ? "m16n8k16.row.col.f32.bf16.bf16.f32"
                                                                                     : "m16n8k16.row.col.f32.f16.f16.f32";
    kr_buf_printf(&b, "// krewrite tensor_core: d += a * b on the tensor cores, one 16 x 8 x %d product of a warp (PTX mma.sync)\n"
                      "static __device__ __forceinline__ void %s(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {\n"
                      "%sasm volatile(\"mma.sync.aligned.%s {%%0, %%1, %%2, %%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\\n\"\n"
                      "%s%s: \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n"
                      "%s%s: \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n}\n\n",
                  tf32 ? 8 : 16, mma, E->unit, type, E->unit, E->unit, E->unit, E->unit);
  }
  ldmatrix_helpers(E, &b);
  if (m == KR_MMA_TF32 && !strstr(text, "unsigned kr_tf32(")) tf32_helper(E, &b);
  if (m == KR_MMA_3XTF32 && !strstr(text, "unsigned kr_tf32_hi(")) tf32_hi_helper(E, &b);
  if (b.len) kr_pass_replace(cx, ts_node_start_byte(cx->kernel->node), ts_node_start_byte(cx->kernel->node), b.data);
  kr_buf_free(&b);
}

/* The ldmatrix helpers the fragments' loads called (E->uses_ld), those the file lacks, into b. */
static void ldmatrix_helpers(Emit *E, KrBuf *b) {
  const char *text = E->cx->src->text;
  static const struct { const char *name, *inst; int n; } lds[] = {
    {"kr_ldmatrix_x4", "x4", 4}, {"kr_ldmatrix_x2", "x2", 2}, {"kr_ldmatrix_x4_trans", "x4.trans", 4},
    {"kr_ldmatrix_x2_trans", "x2.trans", 2}};
  for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++) {
    if (!E->uses_ld[i] || strstr(text, kr_arena_printf(E->a, "void %s(", lds[i].name))) continue;
    KrBuf regs = {0}, outs = {0};
    asm_operand_list(&regs, &outs, lds[i].n, "=r", "r");
    kr_buf_printf(b, "// krewrite tensor_core: %d 8 x 8 blocks of 16-bit elements from shared memory%s, lane l giving the "
                      "address of row l %% 8 of block l / 8 (PTX ldmatrix)\n"
                      "static __device__ __forceinline__ void %s(unsigned (&r)[%d], const void *row) {\n"
                      "%sasm volatile(\"ldmatrix.sync.aligned.m8n8.%s.shared.b16 {%s}, [%%%d];\\n\"\n"
                      "%s%s: %s\n%s%s: \"l\"(__cvta_generic_to_shared(row)));\n}\n\n",
                  lds[i].n, strstr(lds[i].inst, "trans") ? ", transposed" : "", lds[i].name, lds[i].n, E->unit,
                  lds[i].inst, regs.data, lds[i].n, E->unit, E->unit, outs.data, E->unit, E->unit);
    kr_buf_free(&regs);
    kr_buf_free(&outs);
  }
}

/* kr_tf32, the rounding of a float to tf32, into b. */
static void tf32_helper(Emit *E, KrBuf *b) {
  kr_buf_printf(b, "// krewrite tensor_core: x rounded to tf32, to nearest with ties away from zero (PTX cvt.rna.tf32.f32)\n"
                   "static __device__ __forceinline__ unsigned kr_tf32(float x) {\n"
                   "%sunsigned r;\n"
                   "%sasm(\"cvt.rna.tf32.f32 %%0, %%1;\\n\" : \"=r\"(r) : \"f\"(x));\n"
                   "%sreturn r;\n}\n\n",
                E->unit, E->unit, E->unit);
}

/* kr_tf32_hi, the high part of a 3xtf32 split, into b: cvt.rna's rounding in two integer operations
 * (half a tf32 ulp added to the magnitude, the low 13 bits cleared). sm_90 has no instruction for
 * cvt.rna.tf32.f32; ptxas expands it into four, two of them for infinities and NaNs, which the split
 * does not need: its residual x - hi is NaN for them either way, and so is every product that reads
 * it. Finite values round as cvt.rna does, to infinity past the largest tf32. */
static void tf32_hi_helper(Emit *E, KrBuf *b) {
  kr_buf_printf(b, "// krewrite tensor_core: 3xtf32: x's high part, rounded to tf32 as cvt.rna.tf32.f32 rounds finite values "
                   "(an infinity or NaN gives NaN, as its residual does)\n"
                   "static __device__ __forceinline__ unsigned kr_tf32_hi(float x) {\n"
                   "%sreturn (__float_as_uint(x) + 0x1000u) & 0xffffe000u;\n}\n\n",
                E->unit);
}

/* kr_tf32_lo, the residual of a 3xtf32 split whose high part is what the tensor cores read of x (its
 * truncation to tf32), into b. */
static void tf32_lo_helper(Emit *E, KrBuf *b) {
  kr_buf_printf(b, "// krewrite tensor_core: 3xtf32: x less its truncation to tf32, what the tensor cores read of x "
                   "(its low 13 bits dropped); an infinity or NaN gives NaN\n"
                   "static __device__ __forceinline__ float kr_tf32_lo(float x) {\n"
                   "%sreturn x - __uint_as_float(__float_as_uint(x) & 0xffffe000u);\n}\n\n",
                E->unit);
}

/* The accumulators before the k loop: each thread's four of each 16 x 8 product, zero. */
static void emit_ptx_head(Emit *E, int depth) {
  const KrSchedule *s = E->s;
  line(E, depth, "// krewrite tensor_core: warp w computes the %s x %s outputs at (%s, %s) as %s x %s products of 16 x 8, "
       "k steps of %s (%s, PTX mma.sync)", E->WM, E->WN, E->wm0, E->wn0, E->FM, E->FN, E->MK, mma_names[s->mma]);
  emit_warp_origin(E, depth);
  line(E, depth, "const int %s = %s %% 32, %s = %s / 4, %s = %s %% 4;", E->lane, E->tid, E->gq, E->lane, E->tq, E->lane);
  line(E, depth, "float %s[%s][%s][4];", E->cf, E->FM, E->FN);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++)", E->ia, E->ia, E->FM, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++)", E->ib, E->ib, E->FN, E->ib);
  line(E, depth + 2, "#pragma unroll");
  line(E, depth + 2, "for (int %s = 0; %s < 4; %s++) %s[%s][%s][%s] = 0.0f;", E->v, E->v, E->v, E->cf, E->ia, E->ib, E->v);
}

/* One operand's fragments of the k step at `kk` into frag[...] (and its tf32 residuals into lo). */
static void ptx_load(Emit *E, int depth, const Staged *st, bool a_side, const char *buf, const char *frag, const char *lo) {
  KrMma m = E->s->mma;
  bool tf32 = m == KR_MMA_TF32 || m == KR_MMA_3XTF32;
  const char *ix = a_side ? E->ia : E->ib, *cnt = a_side ? E->FM : E->FN, *w0 = a_side ? E->wm0 : E->wn0;
  const char *o = kr_arena_printf(E->a, "%s + %s * %s", w0, ix, a_side ? "16" : "8");   /* the fragment's first row/column */
  const char *f = kr_arena_printf(E->a, "%s[%s]", frag, ix);
  int nreg = a_side ? 4 : 2;
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", ix, ix, cnt, ix);
  int d = depth + 1;
  if (tf32 && !st->kmaj) {   /* 4-byte elements across the tile: one load each */
    for (int r = 0; r < nreg; r++) {
      int dk = a_side ? (r / 2) * 4 : r * 4, dm = a_side ? (r % 2) * 8 : 0;
      line(E, d, "%s[%d] = __float_as_uint(%s%s[%s + %s%s][%s + %s%s]);", f, r, st->tile, buf, E->kk, E->tq,
           dk ? kr_arena_printf(E->a, " + %d", dk) : "", o, E->gq, dm ? kr_arena_printf(E->a, " + %d", dm) : "");
    }
  } else {
    int half = tf32 ? 4 : 8;   /* elements of a block row along k */
    const char *lane = E->lane, *at;
    int which;   /* kr_ldmatrix_x4, _x2, _x4_trans, _x2_trans */
    if (st->kmaj && a_side) {
      at = kr_arena_printf(E->a, "&%s%s[%s + %s %% 16][%s + (%s / 16) * %d]", st->tile, buf, o, lane, E->kk, lane, half);
      which = 0;
    } else if (st->kmaj) {
      at = kr_arena_printf(E->a, "&%s%s[%s + %s %% 8][%s + (%s / 8 %% 2) * %d]", st->tile, buf, o, lane, E->kk, lane, half);
      which = 1;
    } else if (a_side) {
      at = kr_arena_printf(E->a, "&%s%s[%s + (%s / 16) * 8 + %s %% 8][%s + (%s / 8 %% 2) * 8]", st->tile, buf, E->kk, lane,
                           lane, o, lane);
      which = 2;
    } else {
      at = kr_arena_printf(E->a, "&%s%s[%s + %s %% 16][%s]", st->tile, buf, E->kk, lane, o);
      which = 3;
    }
    static const char *const fn[] = {"kr_ldmatrix_x4", "kr_ldmatrix_x2", "kr_ldmatrix_x4_trans", "kr_ldmatrix_x2_trans"};
    E->uses_ld[which] = true;
    line(E, d, "%s(%s, %s);", fn[which], f, at);
  }
  if (m == KR_MMA_TF32) {   /* rounded to tf32 as loaded: each warp rounds the elements it loads (rounding the
                             * tile once in shared memory, behind a barrier of its own, measured slower:
                             * 1.87 ms against 0.98 on matmul 4096^3, bench/results/tensor-2026-12-03.json) */
    line(E, d, "#pragma unroll");
    line(E, d, "for (int %s = 0; %s < %d; %s++) %s[%s] = kr_tf32(__uint_as_float(%s[%s]));", E->v, E->v, nreg, E->v, f, E->v,
         f, E->v);
  }
  if (tf32 && lo) {   /* 3xtf32: rounded to tf32 and the residual kept (which the tensor cores truncate to
                       * tf32) */
    line(E, d, "#pragma unroll");
    line(E, d, "for (int %s = 0; %s < %d; %s++) {", E->v, E->v, nreg, E->v);
    line(E, d + 1, "const float %s = __uint_as_float(%s[%s]);", E->xv, f, E->v);
    line(E, d + 1, "%s[%s] = kr_tf32_hi(%s);", f, E->v, E->xv);
    line(E, d + 1, "%s[%s][%s] = __float_as_uint(%s - __uint_as_float(%s[%s]));", lo, ix, E->v, E->xv, f, E->v);
    line(E, d, "}");
  }
  line(E, depth, "}");
}

/* One k tile's math: per k step, the warp's fragments of both operands, then FM x FN products. */
static void emit_ptx_math(Emit *E, int depth, const char *buf) {
  const MmaProduct *p = E->prod;
  bool three = E->s->mma == KR_MMA_3XTF32, step = mma_exact(E);
  const char *mma = ptx_mma_name(E->s->mma);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s += %s) {", E->kk, E->kk, E->BK, E->kk, E->MK);
  int d = depth + 1;
  line(E, d, "unsigned %s[%s][4], %s[%s][2];", E->fa, E->FM, E->fb, E->FN);
  if (three) line(E, d, "unsigned %s[%s][4], %s[%s][2];", E->fa_lo, E->FM, E->fb_lo, E->FN);
  ptx_load(E, d, p->a, true, buf, E->fa, three ? E->fa_lo : NULL);
  ptx_load(E, d, p->b, false, buf, E->fb, three ? E->fb_lo : NULL);
  line(E, d, "#pragma unroll");
  line(E, d, "for (int %s = 0; %s < %s; %s++) {", E->ia, E->ia, E->FM, E->ia);
  line(E, d + 1, "#pragma unroll");
  line(E, d + 1, "for (int %s = 0; %s < %s; %s++) {", E->ib, E->ib, E->FN, E->ib);
  const char *c = kr_arena_printf(E->a, "%s[%s][%s]", E->cf, E->ia, E->ib);
  const char *t = step ? E->tf : c;
  if (step) line(E, d + 2, "float %s[4] = {0.0f, 0.0f, 0.0f, 0.0f};", t);
  if (three) {
    line(E, d + 2, "%s(%s, %s[%s], %s[%s]);", mma, t, E->fa_lo, E->ia, E->fb, E->ib);
    line(E, d + 2, "%s(%s, %s[%s], %s[%s]);", mma, t, E->fa, E->ia, E->fb_lo, E->ib);
  }
  line(E, d + 2, "%s(%s, %s[%s], %s[%s]);", mma, t, E->fa, E->ia, E->fb, E->ib);
  if (step) {
    line(E, d + 2, "#pragma unroll");
    line(E, d + 2, "for (int %s = 0; %s < 4; %s++) %s[%s] += %s[%s];", E->v, E->v, E->v, c, E->v, t, E->v);
  }
  line(E, d + 1, "}");
  line(E, d, "}");
  line(E, depth, "}");
}

/* After the k loop: each thread's accumulators are outputs at known places; each goes through the
 * kernel's own guard and epilogue, scaled by the product's invariant factors. */
static void emit_ptx_epilogue(Emit *E, int depth) {
  const MmaProduct *p = E->prod;
  KrBuf sc = {0};
  for (size_t i = 0; i < p->scale.len; i++) kr_buf_printf(&sc, "(%s) * ", p->scale.data[i]);
  line(E, depth, "// krewrite tensor_core: each thread's outputs from its accumulators (rows %s and %s + 8, columns 2 * %s "
       "and 2 * %s + 1 of each product), under the kernel's own guard", E->gq, E->gq, E->tq, E->tq);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", E->ia, E->ia, E->FM, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s; %s++) {", E->ib, E->ib, E->FN, E->ib);
  line(E, depth + 2, "#pragma unroll");
  line(E, depth + 2, "for (int %s = 0; %s < 4; %s++) {", E->v, E->v, E->v);
  emit_output(E, depth + 3, kr_arena_printf(E->a, "%s%s[%s][%s][%s]", sc.data ? sc.data : "", E->cf, E->ia, E->ib, E->v),
              kr_arena_printf(E->a, "%s + %s + %s * 16 + %s + (%s / 2) * 8", E->m0, E->wm0, E->ia, E->gq, E->v),
              kr_arena_printf(E->a, "%s + %s + %s * 8 + %s * 2 + %s %% 2", E->n0, E->wn0, E->ib, E->tq, E->v));
  line(E, depth + 2, "}");
  line(E, depth + 1, "}");
  line(E, depth, "}");
  kr_buf_free(&sc);
}

/* ---- tensor_core { api = "wgmma" }: Hopper's warpgroup products ---------------------------------------------
 * wgmma.mma_async m64nNk8 (tf32) and m64nNk16 (fp16, bf16) compute D (64 x N) += A (64 x K) * B (K x N)
 * for a warpgroup of 4 warps, A from registers (each warp's 16 rows laid out as mma.sync's A fragment
 * of the same type), B from shared memory through a descriptor, K-major here (tf32 has no other
 * layout): each of B's N columns contiguous along k, a row of 128 bytes per k tile. The operand whose
 * tile is k-major (x) is read from shared memory in the swizzled layout (kmaj_at); the other (r) is
 * loaded into registers (tf32 rounded; 16-bit by ldmatrix). When x is the m side's, D is the
 * transposed product: its rows run along n (64 per warpgroup, 16 per warp) and its N columns along the
 * block's m. The k tile's products are issued back to back and waited for before the tile's barrier,
 * so a stage is never refilled under a product that reads it. */

bool kr_schedule_wg_side(const KrNest *n, const KrSchedule *s, bool *x_is_m, const char **why, KrArena *a) {
  KrContraction c;
  if (!kr_schedule_roles(n, s, &c, why, a)) return false;
  bool kmaj[2] = {false, false};
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    OpKind k;
    if (!r->in_loop || r->write || !staged(s, r->array) || ref_kind(n, &c, r, &k, a) || k == OP_K) continue;
    if (k_unit(n, &c, &r->index)) kmaj[k == OP_M ? 0 : 1] = true;
  }
  if (!kmaj[0] && !kmaj[1]) {
    *why = "tensor_core: api wgmma reads its shared-memory operand along k, and neither operand is contiguous "
           "along k (stage one of them with k innermost, or use api mma)";
    return false;
  }
  *x_is_m = kmaj[0];
  return true;
}

/* The checks of a wgmma schedule that need only the record. */
static const char *wg_check(const KrSchedule *s, KrArena *a) {
  int bk = s->mma == KR_MMA_TF32 || s->mma == KR_MMA_3XTF32 ? 32 : 64;   /* a k-major row of 128 bytes */
  if (s->bk != bk)
    return kr_arena_printf(a, "tensor_core: api wgmma needs k tiles of %d for %s (rows of 128 bytes, the swizzle's "
                              "width), not %d", bk, mma_names[s->mma], s->bk);
  bool rows_n = s->wm == s->bm;   /* the transposed product: each warp 16 rows of n, N = BM */
  int nn = rows_n ? s->bm : s->bn, rows = rows_n ? s->bn : s->bm;
  if ((rows_n ? s->wn : s->wm) != 16 || (!rows_n && s->wn != s->bn))
    return "tensor_core: api wgmma sets the warp tile itself (16 rows of the product per warp)";
  if (rows % 64)
    return kr_arena_printf(a, "tensor_core: api wgmma computes 64 rows of the product per warpgroup: the block tile's %d "
                              "along %s is not a multiple of 64", rows, rows_n ? "n" : "m");
  if (nn % 8 || nn > 256)
    return kr_arena_printf(a, "tensor_core: api wgmma's products are 8 to 256 columns wide in steps of 8: the block "
                              "tile's %d along %s is not", nn, rows_n ? "m" : "n");
  if (s->mma == KR_MMA_3XTF32 && nn > 128)
    return kr_arena_printf(a, "tensor_core: api wgmma with 3xtf32 sums each k tile apart from the total (%d more "
                              "registers a thread), so its products are at most 128 columns wide: the block tile's %d "
                              "along %s is wider", nn / 2, nn, rows_n ? "m" : "n");
  if (rows / 16 * 32 > KR_SM90_MAX_THREADS)
    return kr_arena_printf(a, "tensor_core: %d rows of the product need %d threads; a block has at most %d", rows,
                           rows / 16 * 32, KR_SM90_MAX_THREADS);
  if (s->parts > 1) return "tensor_core: split_k does not combine tensor-core parts yet";
  return NULL;
}

/* wgmma's name for the operands' type: tf32 (tf32 and 3xtf32), f16 or bf16. */
static const char *wg_type(KrMma m) { return m == KR_MMA_FP16 ? "f16" : m == KR_MMA_BF16 ? "bf16" : "tf32"; }

/* The name of api wgmma's product function for this precision and width. */
static const char *wg_product(const Emit *E) {
  return kr_arena_printf(E->a, "kr_wgmma_%s_n%d", wg_type(E->s->mma), E->wcols);
}

/* The helper functions of api wgmma, once per file: the product of the block's width, the descriptor of
 * a swizzled tile, the fences and waits, tf32 rounding or the ldmatrix loads. */
static void wg_helpers(Emit *E) {
  KrPassCtx *cx = E->cx;
  const char *text = cx->src->text, *u = E->unit;
  int nn = E->wcols, wk = E->s->mma_k;
  bool tf32 = E->s->mma == KR_MMA_TF32 || E->s->mma == KR_MMA_3XTF32;
  KrBuf b = {0};
  const char *fn = wg_product(E);
  if (!strstr(text, kr_arena_printf(E->a, "void %s(", fn))) {
    KrBuf d = {0}, outs = {0};
    asm_operand_list(&d, &outs, nn / 2, "+f", "d");
    const char *ty = wg_type(E->s->mma);
    kr_buf_printf(&b, "// krewrite tensor_core: d (64 x %d, this warp's 16 rows) += a (64 x %d, registers) * the %d x %d tile "
                      "the descriptor names (k-major), for the warpgroup (PTX wgmma.mma_async, %s, issued: wait for it with "
                      "kr_wgmma_wait)\n"
                      "static __device__ __forceinline__ void %s(float (&d)[%d], const unsigned (&a)[4], unsigned long long desc) {\n"
                      "%sasm volatile(\"wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s {%s}, {%%%d, %%%d, %%%d, %%%d}, %%%d, 1, 1, 1%s;\\n\"\n"
                      "%s%s: %s\n"
                      "%s%s: \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(desc));\n}\n\n",
                  nn, wk, wk, nn, ty, fn, nn / 2, u, nn, wk, ty, ty, d.data, nn / 2, nn / 2 + 1, nn / 2 + 2, nn / 2 + 3,
                  nn / 2 + 4, tf32 ? "" : ", 0", u, u, outs.data, u, u);
    kr_buf_printf(&b, "// krewrite tensor_core: keeps the compiler from moving d's registers across a product in flight\n"
                      "static __device__ __forceinline__ void kr_wgmma_hold_n%d(float (&d)[%d]) {\n"
                      "%s#pragma unroll\n%sfor (int i = 0; i < %d; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n}\n\n",
                  nn, nn / 2, u, u, nn / 2);
    kr_buf_free(&d);
    kr_buf_free(&outs);
  }
  if (!strstr(text, "kr_wgmma_desc(")) {
    kr_buf_printf(&b, "// krewrite tensor_core: the wgmma descriptor of a k-major tile of 128-byte rows in shared memory, "
                      "swizzled by 128 bytes, 8-row groups 1024 bytes apart\n"
                      "static __device__ __forceinline__ unsigned long long kr_wgmma_desc(const void *tile) {\n"
                      "%sconst unsigned a = (unsigned)__cvta_generic_to_shared(tile);\n"
                      "%sreturn (unsigned long long)((a >> 4) & 0x3fff) | (1ull << 16) | (64ull << 32) | (1ull << 62);\n}\n\n",
                  u, u);
    kr_buf_printf(&b, "// krewrite tensor_core: the warpgroup's registers ready for wgmma (PTX wgmma.fence)\n"
                      "static __device__ __forceinline__ void kr_wgmma_fence() { asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\"); }\n\n"
                      "// krewrite tensor_core: the products issued since the last commit, one group (PTX wgmma.commit_group)\n"
                      "static __device__ __forceinline__ void kr_wgmma_commit() { asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\"); }\n\n"
                      "// krewrite tensor_core: every group finished (PTX wgmma.wait_group 0)\n"
                      "static __device__ __forceinline__ void kr_wgmma_wait() { asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\"); }\n\n"
                      "// krewrite tensor_core: a product's fragments kept in their registers until here (it reads them until "
                      "its group is waited for)\n"
                      "static __device__ __forceinline__ void kr_wgmma_keep(const unsigned (&a)[4]) {\n"
                      "%sasm volatile(\"\" :: \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]) : \"memory\");\n}\n\n"
                      "// krewrite tensor_core: this thread's shared-memory writes ordered before the tensor cores' reads "
                      "(PTX fence.proxy.async)\n"
                      "static __device__ __forceinline__ void kr_fence_async() { asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\"); }\n\n",
                  u);
  }
  if (E->s->mma == KR_MMA_TF32 && !strstr(text, "unsigned kr_tf32(")) tf32_helper(E, &b);
  if (E->s->mma == KR_MMA_3XTF32 && !strstr(text, "unsigned kr_tf32_hi(")) tf32_hi_helper(E, &b);
  if (E->s->mma == KR_MMA_3XTF32 && !strstr(text, "float kr_tf32_lo(")) tf32_lo_helper(E, &b);
  ldmatrix_helpers(E, &b);
  if (b.len) kr_pass_replace(cx, ts_node_start_byte(cx->kernel->node), ts_node_start_byte(cx->kernel->node), b.data);
  kr_buf_free(&b);
}

/* The accumulators before the k loop: each thread's N / 2 of its warp's 16 rows, zero. */
static void emit_wg_head(Emit *E, int depth) {
  int nn = E->wcols;
  line(E, depth, "// krewrite tensor_core: warpgroup w computes 64 rows of the %s product (along %s), warp %s / 32 the "
       "16 at %s, each thread %d of them (wgmma m64n%dk%d, %s)", E->wt ? "transposed" : "block's", E->wt ? "n" : "m",
       E->tid, E->wrow0, nn / 2, nn, E->s->mma_k, mma_names[E->s->mma]);
  emit_warp_origin(E, depth);
  line(E, depth, "const int %s = %s %% 32, %s = %s / 4, %s = %s %% 4;", E->lane, E->tid, E->gq, E->lane, E->tq, E->lane);
  line(E, depth, "float %s[%d];", E->cf, nn / 2);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %d; %s++) %s[%s] = 0.0f;", E->v, E->v, nn / 2, E->v, E->cf, E->v);
  if (E->wlo) {
    line(E, depth, "// krewrite tensor_core: 3xtf32: each k tile's products summed apart, then added to the total in fp32 "
         "(the tensor cores truncate as they accumulate: over a long k the total would drift)");
    line(E, depth, "float %s[%d];", E->tf, nn / 2);
  }
}

/* 3xtf32, after a k tile's products are waited for: their sum added to the total, rounded to nearest. */
static void emit_wg_add_tile(Emit *E, int depth) {
  if (!E->wlo) return;
  int nn = E->wcols;
  line(E, depth, "kr_wgmma_hold_n%d(%s);", nn, E->tf);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %d; %s++) %s[%s] += %s[%s];", E->v, E->v, nn / 2, E->v, E->cf, E->v, E->tf, E->v);
}

/* Register q of step i's fragment (and of its residuals', `lo`, for 3xtf32) from the element `at`, rounded to tf32. */
static void emit_wg_frag(Emit *E, int depth, const char *frag, const char *lo, int q, const char *at) {
  if (!lo) {
    line(E, depth, "%s[%s][%d] = kr_tf32(%s);", frag, E->ia, q, at);
    return;
  }
  line(E, depth, "{");   /* 3xtf32: the value rounded to tf32 and its residual */
  line(E, depth + 1, "const float %s = %s;", E->xv, at);
  line(E, depth + 1, "%s[%s][%d] = kr_tf32_hi(%s);", frag, E->ia, q, E->xv);
  line(E, depth + 1, "%s[%s][%d] = __float_as_uint(%s - __uint_as_float(%s[%s][%d]));", lo, E->ia, q, E->xv, frag, E->ia, q);
  line(E, depth, "}");
}

/* The r operand's fragments of the k tile in buffer `buf` for its k steps into `frag` ([BK / K][4]):
 * tf32 rounded, per k step rows g and g + 8 of the warp's 16 at k t and t + 4; 16-bit ones by
 * ldmatrix, the pairs at k 2t and 2t + 8 (the A fragment of mma.sync m16n8k16). */
static void emit_wg_frags(Emit *E, int depth, const char *buf, const char *frag, const char *lo) {
  const Staged *r = E->wr;
  const char *row0 = E->wrow0;
  int wk = E->s->mma_k;
  if (E->s->mma == KR_MMA_FP16 || E->s->mma == KR_MMA_BF16) {   /* x4 blocks: rows 0-7 and 8-15 at k 0-7, then 8-15 */
    line(E, depth, "#pragma unroll");
    line(E, depth, "for (int %s = 0; %s < %s / %d; %s++) {", E->ia, E->ia, E->BK, wk, E->ia);
    const char *kk = kr_arena_printf(E->a, "%s * 16", E->ia), *lane = E->lane, *at;
    if (r->kmaj) {
      at = kr_arena_printf(E->a, "&%s", kmaj_at(E, r, buf, kr_arena_printf(E->a, "%s + %s %% 16", row0, lane),
                                               kr_arena_printf(E->a, "%s + (%s / 16) * 8", kk, lane)));
      E->uses_ld[0] = true;
    } else {
      at = kr_arena_printf(E->a, "&%s%s[%s + (%s / 16) * 8 + %s %% 8][%s + (%s / 8 %% 2) * 8]", r->tile, buf, kk, lane, lane,
                           row0, lane);
      E->uses_ld[2] = true;
    }
    line(E, depth + 1, "%s(%s[%s], %s);", r->kmaj ? "kr_ldmatrix_x4" : "kr_ldmatrix_x4_trans", frag, E->ia, at);
    line(E, depth, "}");
    return;
  }
  const Patch *P = &E->pt;
  if (P->on) {   /* the gather's loop below, under `else` */
    line(E, depth, "if (%s) {", P->use);
    const char *xs = fresh(E, "xs");
    line(E, depth + 1, "const float *%s = &%s%s[0][0];", xs, r->tile, buf);
    line(E, depth + 1, "#pragma unroll");
    line(E, depth + 1, "for (int %s = 0; %s < %s / %d; %s++) {", E->ia, E->ia, E->BK, wk, E->ia);
    for (int q = 0; q < 4; q++)   /* k = 8 i + t (+ 4): ftab[k % 4][k / 4] */
      emit_wg_frag(E, depth + 2, frag, lo, q, kr_arena_printf(E->a, "%s[%s[%d] + %s%s[%s][%s * 2%s]]", xs, P->mp, q % 2, P->ftab,
                                                             buf, E->tq, E->ia, q / 2 ? " + 1" : ""));
    line(E, depth + 1, "}");
    line(E, depth, "} else {");
    depth++;
  }
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s / %d; %s++) {", E->ia, E->ia, E->BK, wk, E->ia);
  for (int q = 0; q < 4; q++) {   /* (row g, k t), (g + 8, t), (g, t + 4), (g + 8, t + 4) */
    const char *row = kr_arena_printf(E->a, "%s + %s%s", row0, E->gq, q % 2 ? " + 8" : "");
    const char *k = kr_arena_printf(E->a, "%s * 8 + %s%s", E->ia, E->tq, q / 2 ? " + 4" : "");
    emit_wg_frag(E, depth + 1, frag, lo, q,
                 r->kmaj ? kmaj_at(E, r, buf, row, k) : kr_arena_printf(E->a, "%s%s[%s][%s]", r->tile, buf, k, row));
  }
  line(E, depth, "}");
  if (P->on) line(E, depth - 1, "}");
}

/* 3xtf32: the residuals of the x tile in buffer `buf` into the lo tile's buffer `lbuf`, elementwise (the
 * layouts are the same), four at a time. The tile itself is left as it landed: the tensor cores read
 * its elements truncated to tf32 (their low 13 bits dropped), so its high parts are those truncations
 * and its residuals x less them (exact in fp32), which the tensor cores truncate in turn. Rounding the
 * tile to nearest in place instead (kr_tf32_hi, then a store of the high parts) measured 11% slower
 * on matmul 4096^3: 1.838 ms against 1.656, at 3.2e-7 against float64 where this split gives 3.9e-7
 * (bench/results/tensor-2026-12-03e.json). The caller orders the writes before wgmma's reads (fence
 * and barrier). */
static void emit_wg_split(Emit *E, int depth, const char *buf, const char *lbuf) {
  const char *x = kr_arena_printf(E->a, "reinterpret_cast<const float4 *>(&%s%s[0])", E->wx->tile, buf);
  line(E, depth, "// krewrite tensor_core: 3xtf32: the residuals of '%s' beside its tile (x less what the tensor cores "
       "read of it)", E->wx->array);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = %s; %s < %d * %s / 4; %s += %s) {", E->e, E->tid, E->e, E->wcols, E->BK, E->e, E->NT);
  line(E, depth + 1, "const float4 %s = %s[%s];", E->xv, x, E->e);
  line(E, depth + 1, "reinterpret_cast<float4 *>(&%s%s[0])[%s] = make_float4(kr_tf32_lo(%s.x), kr_tf32_lo(%s.y), "
       "kr_tf32_lo(%s.z), kr_tf32_lo(%s.w));", E->wlo, lbuf, E->e, E->xv, E->xv, E->xv, E->xv);
  line(E, depth, "}");
}

/* A product per k step of the tile in buffer `buf` on fragments `frag`, issued as one group; each k step
 * starts 32 bytes further along the tile's rows. */
static void emit_wg_issue(Emit *E, int depth, const char *buf, const char *frag, const char *lbuf) {
  int nn = E->wcols, wk = E->s->mma_k;
  const char *fn = wg_product(E), *d = lbuf ? E->tf : E->cf;
  if (lbuf) {
    line(E, depth, "#pragma unroll");
    line(E, depth, "for (int %s = 0; %s < %d; %s++) %s[%s] = 0.0f;", E->v, E->v, nn / 2, E->v, d, E->v);
  }
  line(E, depth, "kr_wgmma_hold_n%d(%s);", nn, d);
  line(E, depth, "kr_wgmma_fence();");
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %s / %d; %s++)%s", E->ia, E->ia, E->BK, wk, E->ia, lbuf ? " {" : "");
  const char *hi = kr_arena_printf(E->a, "kr_wgmma_desc(&%s%s[%s * %d])", E->wx->tile, buf, E->ia, wk);
  if (lbuf) {   /* 3xtf32: the small terms first, r's residual by x and r by x's residual */
    line(E, depth + 1, "%s(%s, %s[%s], %s);", fn, d, E->fa_lo, E->ia, hi);
    line(E, depth + 1, "%s(%s, %s[%s], kr_wgmma_desc(&%s%s[%s * %d]));", fn, d, frag, E->ia, E->wlo, lbuf, E->ia, wk);
  }
  line(E, depth + 1, "%s(%s, %s[%s], %s);", fn, d, frag, E->ia, hi);
  if (lbuf) line(E, depth, "}");
  line(E, depth, "kr_wgmma_commit();");
}

/* One k tile's products (one or two stages): its fragments, its products, waited for. */
static void emit_wg_math(Emit *E, int depth, const char *buf) {
  int nn = E->wcols;
  const char *lbuf = E->wlo ? "[0]" : NULL;
  if (E->wlo) {
    emit_wg_split(E, depth, buf, lbuf);
    line(E, depth, "kr_fence_async();");
    line(E, depth, "__syncthreads();");
    line(E, depth, "unsigned %s[%s / %d][4];", E->fa_lo, E->BK, E->s->mma_k);
  }
  line(E, depth, "unsigned %s[%s / %d][4];", E->fa, E->BK, E->s->mma_k);
  emit_wg_frags(E, depth, buf, E->fa, E->wlo ? E->fa_lo : NULL);
  emit_wg_issue(E, depth, buf, E->fa, lbuf);
  line(E, depth, "kr_wgmma_wait();");
  line(E, depth, "kr_wgmma_hold_n%d(%s);", nn, E->cf);
  emit_wg_add_tile(E, depth);
}

/* The k loop of a wgmma schedule of three stages or more: the products of tile kt run while the
 * block waits for tile kt + 1, passes its barrier, starts the loads of tile kt + STAGES - 1 (into the
 * stage tile kt - 1 used, whose products every warpgroup has waited for before that barrier) and
 * loads tile kt + 1's fragments into registers of their own; then they are waited for. The
 * fragments in flight are held live until then (kr_wgmma_keep), so the next ones cannot take their
 * registers; ptxas keeps the products in flight (fragments defined for a later group, not theirs).
 * Measured on matmul 4096^3: 0.567 ms against 0.606 waiting before each tile's loads
 * (bench/proto/wgmma/wgmma_pipe.cu, bench/results/conv-wgmma-2026-12-03.json). */
static void emit_wg_k_loop(Emit *E, int depth) {
  int nn = E->wcols, wk = E->s->mma_k;
  const char *buf = kr_arena_printf(E->a, "[%s %% %s]", E->kt, E->STAGES);
  const char *next = fresh(E, "a_next"), *next_lo = E->wlo ? fresh(E, "a_next_lo") : NULL;
  const char *lbuf = E->wlo ? kr_arena_printf(E->a, "[%s %% 2]", E->kt) : NULL;
  const char *nbuf = kr_arena_printf(E->a, "[(%s + 1) %% %s]", E->kt, E->STAGES);
  emit_prefetch_prologue(E, depth, buf);
  line(E, depth, "// krewrite tensor_core: tile 0's fragments; each tile's products then run under the next tile's wait, "
       "barrier, loads and fragments");
  line(E, depth, "unsigned %s[%s / %d][4], %s[%s / %d][4];", E->fa, E->BK, wk, next, E->BK, wk);
  if (E->wlo) line(E, depth, "unsigned %s[%s / %d][4], %s[%s / %d][4];", E->fa_lo, E->BK, wk, next_lo, E->BK, wk);
  line(E, depth, "__pipeline_wait_prior(%s - 2);", E->STAGES);
  line(E, depth, "kr_fence_async();");
  line(E, depth, "__syncthreads();");
  line(E, depth, "if (%s > 0) {", E->ntiles);
  if (E->wlo) {
    emit_wg_split(E, depth + 1, "[0]", "[0]");
    line(E, depth + 1, "kr_fence_async();");
  }
  emit_wg_frags(E, depth + 1, kr_arena_printf(E->a, "[0]"), E->fa, E->wlo ? E->fa_lo : NULL);
  line(E, depth, "}");
  if (E->wlo) line(E, depth, "__syncthreads();");
  line(E, depth, "for (int %s = 0; %s < %s; %s++) {", E->kt, E->kt, E->ntiles, E->kt);
  emit_wg_issue(E, depth + 1, buf, E->fa, lbuf);
  line(E, depth + 1, "if (%s + 1 < %s) {", E->kt, E->ntiles);
  line(E, depth + 2, "__pipeline_wait_prior(%s - 3);", E->STAGES);
  line(E, depth + 2, "kr_fence_async();");
  line(E, depth + 2, "__syncthreads();");
  emit_next_loads(E, depth + 2);
  if (E->wlo) emit_wg_split(E, depth + 2, nbuf, kr_arena_printf(E->a, "[(%s + 1) %% 2]", E->kt));
  emit_wg_frags(E, depth + 2, nbuf, next, next_lo);
  if (E->wlo) {   /* the tile's rounding and residuals written before its products read them */
    line(E, depth + 2, "kr_fence_async();");
    line(E, depth + 2, "__syncthreads();");
  }
  line(E, depth + 1, "}");
  line(E, depth + 1, "kr_wgmma_wait();");
  line(E, depth + 1, "kr_wgmma_hold_n%d(%s);", nn, E->cf);
  emit_wg_add_tile(E, depth + 1);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < %s / %d; %s++) {", E->ia, E->ia, E->BK, wk, E->ia);
  line(E, depth + 2, "kr_wgmma_keep(%s[%s]);", E->fa, E->ia);
  if (E->wlo) line(E, depth + 2, "kr_wgmma_keep(%s[%s]);", E->fa_lo, E->ia);
  line(E, depth + 2, "if (%s + 1 < %s)", E->kt, E->ntiles);
  if (E->wlo) {
    line(E, depth + 3, "for (int %s = 0; %s < 4; %s++) %s[%s][%s] = %s[%s][%s], %s[%s][%s] = %s[%s][%s];", E->v, E->v, E->v,
         E->fa, E->ia, E->v, next, E->ia, E->v, E->fa_lo, E->ia, E->v, next_lo, E->ia, E->v);
  } else {
    line(E, depth + 3, "for (int %s = 0; %s < 4; %s++) %s[%s][%s] = %s[%s][%s];", E->v, E->v, E->v, E->fa, E->ia, E->v, next,
         E->ia, E->v);
  }
  line(E, depth + 1, "}");
  line(E, depth, "}");
}

/* ---- fuse's max-pool from the output tile ------------------------------------------------------------------
 * A producer that fuse gave a max-pool consumer (its epilogue ends in `kr_fuse_<consumer>(value, digits…)`,
 * each output folded into the pooled outputs whose windows hold it by atomic maxima) computes the pool
 * from the staged epilogue's tile instead, when the window runs over the m group's two innermost axes
 * (the pooled rows over the second, the pooled columns over the innermost, windows of constant size):
 * each output's final value goes into the tile, then each warp takes channels (the tile's columns)
 * and its lanes pooled columns, and walks the tile's rows once, each row's window columns reduced to
 * one value and the last rows' values kept, so that a pooled row is complete at the row that ends its
 * windows. A window wholly inside the tile is stored (no other block sees it), one the tile's first or
 * last row cuts is folded in by the same atomic maximum, the others (windows the tile misses) skipped;
 * the output was filled with all-ones bytes before the launch, as for the call. */
typedef struct Pool {
  const KrNest *cn;
  const KrNestRef *out;        /* the consumer's store */
  KrWindowDigit *d;
  int nd;
  int rows, cols;              /* the window's rows and columns (its two loops' constant extents) */
  const char *value;           /* the call's first argument: the output's value as stored */
  /* KR_FUSE_ONLY: no other launch reads the array. When the epilogue is non-decreasing in the
   * accumulator (pool_late), the tile keeps the raw accumulators, the array is not stored, and the
   * epilogue runs once per pooled output, on the window's maximum: late. */
  bool late;
  const char *array;           /* the stored array */
  KrVec(TSNode) stmts;         /* the epilogue's statements before the call */
} Pool;

/* Whether `x` is non-decreasing in the array `array`'s element (each of its references the running
 * value): the element itself, a number, or fmaxf / fminf / + of such, minus a number, times a number
 * that is not negative. */
static bool pool_mono(Emit *E, TSNode x, const char *array) {
  const KrTree *t = E->t;
  TSSymbol sym = ts_node_symbol(x);
  if (sym == t->sym.number_literal) return true;
  if (sym == t->sym.parenthesized_expression) return pool_mono(E, ts_node_named_child(x, 0), array);
  if (sym == t->sym.subscript_expression)
    return strcmp(node_text(E, ts_node_child_by_field_name(x, "argument", 8)), array) == 0;
  if (sym == t->sym.call_expression) {
    const char *fn = kr_node_callee(t, x, E->a);
    TSNode args = ts_node_child_by_field_name(x, "arguments", 9);
    if (!fn || (strcmp(fn, "fmaxf") != 0 && strcmp(fn, "fminf") != 0)) return false;
    if (ts_node_named_child_count(args) != 2) return false;
    return pool_mono(E, ts_node_named_child(args, 0), array) && pool_mono(E, ts_node_named_child(args, 1), array);
  }
  if (sym == t->sym.binary_expression) {
    TSNode l = ts_node_child_by_field_name(x, "left", 4), r = ts_node_child_by_field_name(x, "right", 5);
    bool rnum = ts_node_symbol(r) == t->sym.number_literal, lnum = ts_node_symbol(l) == t->sym.number_literal;
    if (kr_node_operator_is(t, x, "+")) return pool_mono(E, l, array) && pool_mono(E, r, array);
    if (kr_node_operator_is(t, x, "-")) return pool_mono(E, l, array) && rnum;
    if (kr_node_operator_is(t, x, "*"))
      return (rnum && strtod(node_text(E, r), NULL) >= 0 && pool_mono(E, l, array)) ||
             (lnum && strtod(node_text(E, l), NULL) >= 0 && pool_mono(E, r, array));
  }
  return false;
}

/* Whether the epilogue before the call can run once per pooled output, on the window's maximum (above):
 * an accumulator summed or maximised, started from values of the n group's axes alone, stored into the
 * array, then only updates of the array that are non-decreasing in it. */
static bool pool_late(Emit *E, Pool *P) {
  const KrNest *n = E->n;
  if (!n->acc || (n->op != KR_RED_SUM && n->op != KR_RED_MAX)) return false;
  for (size_t i = 0; i < n->prologue.len; i++)
    if (!ts_node_eq(n->prologue.data[i], n->acc_decl)) return false;
  for (size_t i = 0; i < n->refs.len; i++)
    if (kr_node_within(n->refs.data[i].node, n->acc_decl) && reads_role(&n->refs.data[i].index, &E->c, 0)) return false;
  for (size_t i = 0; i < P->stmts.len; i++) {
    TSNode st = P->stmts.data[i], asg = ts_node_named_child(st, 0);
    if (ts_node_symbol(st) != E->t->sym.expression_statement || ts_node_symbol(asg) != E->t->sym.assignment_expression ||
        !kr_node_operator_is(E->t, asg, "="))
      return false;
    TSNode l = ts_node_child_by_field_name(asg, "left", 4), r = ts_node_child_by_field_name(asg, "right", 5);
    if (ts_node_symbol(l) != E->t->sym.subscript_expression ||
        strcmp(node_text(E, ts_node_child_by_field_name(l, "argument", 8)), P->array) != 0)
      return false;
    if (i == 0 ? strcmp(node_text(E, r), n->acc) != 0 : !pool_mono(E, r, P->array)) return false;
  }
  return P->stmts.len > 0;
}

static long literal(const char *t) {
  char *end;
  long v = t ? strtol(t, &end, 10) : 0;
  return t && *t && !*end ? v : 0;
}

static void pool_plan(Emit *E) {
  const KrNest *n = E->n;
  const KrContraction *c = &E->c;
  if (!E->s->mma_wg || !E->s->implicit || E->s->parts > 1 || c->ngroup[0] < 2) return;
  TSNode call = {0};
  const char *name = NULL;
  bool only = false;
  for (size_t i = 0; i < n->epilogue.len && !name; i++) {
    TSNode x = ts_node_named_child(n->epilogue.data[i], 0);
    if (ts_node_symbol(n->epilogue.data[i]) == E->t->sym.expression_statement && !ts_node_is_null(x) &&
        ts_node_symbol(x) == E->t->sym.call_expression)
      name = kr_window_consumer(kr_node_callee(E->t, x, E->a), &only), call = n->epilogue.data[i];
  }
  if (!name) return;
  const KrKernel *ck = kr_model_find(E->cx->model, name);
  KrDiags *d = kr_diags_new();
  const KrNest *cn = ck ? kr_nest_lift(E->cx->tree, ck, E->a, d) : NULL;
  kr_diags_free(d);
  if (!cn || cn->nreduce != 2) return;
  const KrNestRef *read = NULL, *out = NULL, *w = NULL;
  for (size_t i = 0; i < cn->refs.len; i++) {
    if (cn->refs.data[i].write) out = &cn->refs.data[i];
    else if (cn->refs.data[i].in_loop) read = &cn->refs.data[i];
  }
  for (size_t i = 0; read && i < n->refs.len; i++)
    if (n->refs.data[i].write && strcmp(n->refs.data[i].array, read->array) == 0) w = &n->refs.data[i];
  if (!read || !out || !w) return;
  Pool *P = kr_arena_alloc(E->a, sizeof *P);
  bool producer;
  if (kr_window_split(cn, &read->index, read->array, n, &w->index, &P->d, &P->nd, &producer, E->a) || P->nd < 3) return;
  /* The two innermost digits: the m group's two innermost axes, each with a loop of constant extent
   * from 0 at unit step; the outer digits without loops, over neither of those axes. */
  const KrWindowDigit *dr = &P->d[P->nd - 2], *dc = &P->d[P->nd - 1];
  int q = c->group[0][c->ngroup[0] - 1], p = c->group[0][c->ngroup[0] - 2];
  if (dr->loop < 0 || dc->loop < 0 || dr->lcoef != 1 || dc->lcoef != 1 || dr->w.terms.data[0].var != p ||
      dc->w.terms.data[0].var != q)
    return;
  P->rows = (int)literal(cn->axes.data[dr->loop].hi), P->cols = (int)literal(cn->axes.data[dc->loop].hi);
  if (P->rows < 1 || P->rows > 8 || P->cols < 1 || P->cols > 8) return;
  for (int i = 0; i < P->nd - 2; i++) {
    if (P->d[i].loop >= 0) return;
    for (size_t t = 0; t < P->d[i].w.terms.len; t++)
      if (P->d[i].w.terms.data[t].var == p || P->d[i].w.terms.data[t].var == q) return;
  }
  P->cn = cn, P->out = out, P->array = read->array;
  P->value = node_text(E, ts_node_named_child(ts_node_child_by_field_name(ts_node_named_child(call, 0), "arguments", 9), 0));
  for (size_t i = 0; i < n->epilogue.len && !ts_node_eq(n->epilogue.data[i], call); i++)
    kr_vec_push(E->a, &P->stmts, n->epilogue.data[i]);
  P->late = only && pool_late(E, P);
  E->pool = P, E->pool_call = call;
}

/* One pooled output of the walk (emit_pool): `v` its maximum, `whole` whether the tile holds its whole
 * window, `seen` whether it holds any of it; under the consumer's own guards, in a scope of its names. */
static void pool_output(Emit *E, int depth, const char *const *value, const char *po, const char *qo, const char *v,
                        const char *whole, const char *seen) {
  const Pool *P = E->pool;
  const KrNest *cn = P->cn;
  const KrWindowDigit *dr = &P->d[P->nd - 2], *dc = &P->d[P->nd - 1];
  KrBuf b = {0};
  for (int i = 0; i < P->nd - 2; i++)
    kr_buf_printf(&b, "%s%s = %s", b.len ? ", " : "const int ", cn->axes.data[P->d[i].axis].name,
                  P->d[i].w.terms.len ? kr_nest_form_text_at(&P->d[i].w, value, E->a) : "0");
  kr_buf_printf(&b, "%s%s = %s, %s = %s;", b.len ? ", " : "const int ", cn->axes.data[dr->axis].name, po,
                cn->axes.data[dc->axis].name, qo);
  line(E, depth, "{");
  line(E, depth + 1, "%s", b.data);
  kr_buf_free(&b);
  const char *flat, *cond, *index;
  kr_window_output(cn, P->out, E->a, &flat, &cond, &index);
  if (*flat) line(E, depth + 1, "%s", flat);
  const char *addr = kr_arena_printf(E->a, "&%s[%s]", P->out->array, index), *and = *cond ? " && " : "";
  if (whole) line(E, depth + 1, "if (%s%s%s) *(%s) = %s;", cond, and, whole, addr, v);
  line(E, depth + 1, "%sif (%s%s%s) kr_atomic_max_f32(%s, %s);", whole ? "else " : "", cond, and, seen, addr, v);
  line(E, depth, "}");
}

/* Late: `v` (declared) becomes the epilogue applied to the window's maximum `mx`, with the axes at `value`
 * (the n group's: the epilogue reads no others), the array's element a local. */
static void pool_late_value(Emit *E, int depth, const char *const *value, const char *mx, const char *v, const char *init) {
  const Pool *P = E->pool;
  const KrNest *n = E->n;
  const char *el = fresh(E, "pool_el");
  KrBuf body = {0};
  kr_buf_printf(&body, "%s %s = %s;\n", n->acc_type ? n->acc_type : "float", n->acc, init);
  if (n->op == KR_RED_SUM) kr_buf_printf(&body, "%s += %s;\n", n->acc, mx);
  else kr_buf_printf(&body, "%s = %s(%s, %s);\n", n->acc, n->combine_fn, n->acc, mx);
  kr_buf_printf(&body, "%s %s;\n", n->acc_type ? n->acc_type : "float", el);
  for (size_t i = 0; i < P->stmts.len; i++) {
    Subs subs = {0};
    for (size_t r = 0; r < n->refs.len; r++)
      if (strcmp(n->refs.data[r].array, P->array) == 0 && kr_node_within(n->refs.data[r].node, P->stmts.data[i]))
        sub_add(E, &subs, n->refs.data[r].node, el);
    kr_buf_printf(&body, "%s\n", splice(E, P->stmts.data[i], &subs));
  }
  kr_buf_printf(&body, "%s = %s;\n", v, el);
  scoped(E, depth, value, body.data);
  kr_buf_free(&body);
}

/* After the staged epilogue has put each output's final value into the tile `ot` (late: the raw
 * accumulators): the pool (above). */
static void emit_pool(Emit *E, int depth, const char *ot) {
  const Pool *P = E->pool;
  const KrNest *n = E->n, *cn = P->cn;
  const KrContraction *c = &E->c;
  const KrWindowDigit *dr = &P->d[P->nd - 2], *dc = &P->d[P->nd - 1];
  int q = c->group[0][c->ngroup[0] - 1], p = c->group[0][c->ngroup[0] - 2];
  const char *Q = axis_extent(&n->axes.data[q]), *Pe = axis_extent(&n->axes.data[p]);
  const char *PO = cn->axes.data[dr->axis].hi, *QO = cn->axes.data[dc->axis].hi;
  const char *tl = fresh(E, "pool_tl"), *rf = fresh(E, "pool_rf"), *rl = fresh(E, "pool_rl"), *pl = fresh(E, "pool_lane");
  const char *qo = fresh(E, "pool_qo"), *live = fresh(E, "pool_live"), *pr = fresh(E, "pool_p"), *r = fresh(E, "pool_r");
  const char *mb = fresh(E, "pool_mb"), *h = fresh(E, "pool_h"), *wh = fresh(E, "pool_whole"), *sn = fresh(E, "pool_seen");
  const char *u = fresh(E, "pool_u"), *ch = fresh(E, "pool_c"), *k = fresh(E, "pool_k"), *cur = fresh(E, "pool_cur");
  const char *inner = fresh(E, "pool_inner"), *rw = fresh(E, "pool_row_whole"), *rs = fresh(E, "pool_row_seen");
  const char *done = fresh(E, "pool_done"), *mx = fresh(E, "pool_max"), *all = fresh(E, "pool_all");
  const char *any = fresh(E, "pool_any"), *po = fresh(E, "pool_po"), *last = fresh(E, "pool_last"), *ok = fresh(E, "pool_ok");
  const char *init = fresh(E, "pool_init");
  int R = P->rows, S = P->cols;
  long nw = block_threads(E->s) / 32, CH = (E->s->bn + nw - 1) / nw;
  long long cr = dr->coef, cc = dc->coef;
  const char *M = role_extent_from(E, 0, 0), *N = role_extent_from(E, 1, 0);
  const char *chan = kr_arena_printf(E->a, "%s / 32 + %s * %ld", E->tid, u, nw);
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  set_role_outer(E, value, 0, r, "0");   /* the row's m axes (the innermost unused) */
  set_role(E, value, 1, kr_arena_printf(E->a, "%s + %s", E->n0, ch));
  line(E, depth, "// krewrite fuse: %s from the output tile: lanes take pooled columns, warps the tile's columns %ld "
       "apart; each walks the tile's rows once, keeping each row's window maximum for the %d rows of a window; a window "
       "wholly in the tile is stored, one the tile cuts folded in by an atomic maximum", cn->kernel->name, nw, R);
  line(E, depth, "__syncthreads();");
  line(E, depth, "const int %s = min(%s, %s - %s);", tl, E->BM, M, E->m0);
  line(E, depth, "const int %s = %s / (%s), %s = (%s + %s - 1) / (%s), %s = %s %% 32;", rf, E->m0, Q, rl, E->m0, tl, Q, pl, E->tid);
  line(E, depth, "unsigned %s = 0;   // the thread's channels inside the output", ok);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %ld; %s++)", u, u, CH, u);
  line(E, depth + 1, "if (%s < %s && %s + %s < %s) %s |= 1u << %s;", chan, E->BN, E->n0, chan, N, ok, u);
  if (P->late) {   /* the accumulator's start, the same for a channel's every output: once */
    const char *acc = E->n->acc;
    line(E, depth, "%s %s[%ld];   // each channel's start of the accumulator", E->n->acc_type ? E->n->acc_type : "float", init, CH);
    line(E, depth, "#pragma unroll");
    line(E, depth, "for (int %s = 0; %s < %ld; %s++) {", u, u, CH, u);
    line(E, depth + 1, "const int %s = %s;", ch, chan);
    line(E, depth + 1, "%s[%s] = 0;", init, u);
    line(E, depth + 1, "if (%s >> %s & 1)", ok, u);
    scoped(E, depth + 2, value, kr_arena_printf(E->a, "%s\n%s[%s] = %s;\n", node_text(E, E->n->acc_decl), init, u, acc));
    line(E, depth, "}");
  }
  line(E, depth, "for (int %s = %s; %s - %s < %s; %s += 32) {", qo, pl, qo, pl, QO, qo);
  int d1 = depth + 1, d2 = depth + 2, d3 = depth + 3, d4 = depth + 4;
  line(E, d1, "const bool %s = %s < %s;", live, qo, QO);
  line(E, d1, "float %s[%d][%ld];   // the window maximum of the last rows, [0] the latest", h, R, CH);
  line(E, d1, "bool %s[%d], %s[%d];   // whether the tile held all of that row's window, or any", wh, R, sn, R);
  line(E, d1, "#pragma unroll");
  line(E, d1, "for (int %s = 0; %s < %d; %s++) {", k, k, R, k);
  line(E, d2, "%s[%s] = %s[%s] = false;", wh, k, sn, k);
  line(E, d2, "#pragma unroll");
  line(E, d2, "for (int %s = 0; %s < %ld; %s++) %s[%s][%s] = -INFINITY;", u, u, CH, u, h, k, u);
  line(E, d1, "}");
  line(E, d1, "int %s = %s %% (%s);", pr, rf, Pe);
  line(E, d1, "for (int %s = %s; %s <= %s; %s++) {", r, rf, r, rl, r);
  line(E, d2, "const int %s = %s * (%s) - %s + %lld * %s;", mb, r, Q, E->m0, cc, qo);
  line(E, d2, "const bool %s = %s != %s && %s != %s;", inner, r, rf, r, rl);
  line(E, d2, "const bool %s = %s || (%s >= 0 && %s + %d < %s);", rw, inner, mb, mb, S - 1, tl);
  line(E, d2, "const bool %s = %s || (%s + %d >= 0 && %s < %s);", rs, inner, mb, S - 1, mb, tl);
  line(E, d2, "const bool %s = %s && %s >= %d && (%s - %d) %% %lld == 0 && (%s - %d) / %lld < %s;", done, live, pr, R - 1,
       pr, R - 1, cr, pr, R - 1, cr, PO);
  line(E, d2, "bool %s = %s, %s = %s;", all, rw, any, rs);
  line(E, d2, "#pragma unroll");
  line(E, d2, "for (int %s = 0; %s < %d; %s++) %s = %s && %s[%s], %s = %s || %s[%s];", k, k, R - 1, k, all, all, wh, k, any,
       any, sn, k);
  line(E, d2, "#pragma unroll");
  line(E, d2, "for (int %s = 0; %s < %ld; %s++) {", u, u, CH, u);
  line(E, d3, "const int %s = %s;", ch, chan);
  line(E, d3, "float %s = -INFINITY;", cur);
  line(E, d3, "if (%s && %s) {   // a row wholly in the tile: its window columns read without tests", live, inner);
  line(E, d4, "#pragma unroll");
  line(E, d4, "for (int %s = 0; %s < %d; %s++) %s = fmaxf(%s, %s[%s][%s + %s]);", k, k, S, k, cur, cur, ot, ch, mb, k);
  line(E, d3, "} else if (%s) {", live);
  line(E, d4, "#pragma unroll");
  line(E, d4, "for (int %s = 0; %s < %d; %s++)", k, k, S, k);
  line(E, d4 + 1, "if (%s + %s >= 0 && %s + %s < %s) %s = fmaxf(%s, %s[%s][%s + %s]);", mb, k, mb, k, tl, cur, cur, ot, ch, mb, k);
  line(E, d3, "}");
  line(E, d3, "if (%s && (%s >> %s & 1)) {", done, ok, u);
  line(E, d4, "float %s = %s;", mx, cur);
  line(E, d4, "#pragma unroll");
  line(E, d4, "for (int %s = 0; %s < %d; %s++) %s = fmaxf(%s, %s[%s][%s]);", k, k, R - 1, k, mx, mx, h, k, u);
  if (P->late) pool_late_value(E, d4, value, mx, mx, kr_arena_printf(E->a, "%s[%s]", init, u));
  pool_output(E, d4, value, kr_arena_printf(E->a, "(%s - %d) / %lld", pr, R - 1, cr), qo, mx, all, any);
  line(E, d3, "}");
  line(E, d3, "#pragma unroll");
  line(E, d3, "for (int %s = %d; %s > 0; %s--) %s[%s][%s] = %s[%s - 1][%s];", k, R - 1, k, k, h, k, u, h, k, u);
  line(E, d3, "%s[0][%s] = %s;", h, u, cur);
  line(E, d2, "}");
  line(E, d2, "#pragma unroll");
  line(E, d2, "for (int %s = %d; %s > 0; %s--) %s[%s] = %s[%s - 1], %s[%s] = %s[%s - 1];", k, R - 1, k, k, wh, k, wh, k, sn,
       k, sn, k);
  line(E, d2, "%s[0] = %s, %s[0] = %s;", wh, rw, sn, rs);
  line(E, d2, "if (++%s == %s) {   // the next image (no window spans two): nothing kept", pr, Pe);
  line(E, d3, "%s = 0;", pr);
  line(E, d3, "#pragma unroll");
  line(E, d3, "for (int %s = 0; %s < %d; %s++) {", k, k, R, k);
  line(E, d3 + 1, "%s[%s] = %s[%s] = false;", wh, k, sn, k);
  line(E, d3 + 1, "#pragma unroll");
  line(E, d3 + 1, "for (int %s = 0; %s < %ld; %s++) %s[%s][%s] = -INFINITY;", u, u, CH, u, h, k, u);
  line(E, d3, "}");
  line(E, d2, "}");
  line(E, d1, "}");
  /* The pooled rows the tile's last rows begin (their windows run past the tile): from the rows kept. */
  line(E, d1, "if (%s && %s > 0) {", live, pr);
  line(E, d2, "const int %s = %s - 1, %s = %s;", last, pr, r, rl);
  line(E, d2, "for (int %s = %s - %d < 0 ? 0 : (%s - %d) / %lld + 1; %s <= %s / %lld && %s < %s; %s++) {", po, last, R - 1,
       last, R - 1, cr, po, last, cr, po, PO, po);
  line(E, d3, "bool %s = false;", any);
  line(E, d3, "#pragma unroll");
  line(E, d3, "for (int %s = 0; %s < %d; %s++) %s = %s || (%s <= %s - %lld * %s && %s[%s]);", k, k, R, k, any, any, k, last,
       cr, po, sn, k);
  line(E, d3, "#pragma unroll");
  line(E, d3, "for (int %s = 0; %s < %ld; %s++) {", u, u, CH, u);
  line(E, d4, "const int %s = %s;", ch, chan);
  line(E, d4, "if (%s >> %s & 1) {", ok, u);
  line(E, d4 + 1, "float %s = -INFINITY;", mx);
  line(E, d4 + 1, "#pragma unroll");
  line(E, d4 + 1, "for (int %s = 0; %s < %d; %s++) if (%s <= %s - %lld * %s) %s = fmaxf(%s, %s[%s][%s]);", k, k, R, k, k, last,
       cr, po, mx, mx, h, k, u);
  if (P->late) pool_late_value(E, d4 + 1, value, mx, mx, kr_arena_printf(E->a, "%s[%s]", init, u));
  pool_output(E, d4 + 1, value, po, qo, mx, NULL, any);
  line(E, d4, "}");
  line(E, d3, "}");
  line(E, d2, "}");
  line(E, d1, "}");
  line(E, depth, "}");
}

/* Whether the wgmma epilogue goes through shared memory: the output runs along m in memory (unit
 * stride along m's innermost axis) while a warp's accumulators run 8 rows down 4 pairs of columns, so
 * its stores would be 32-byte pieces a column apart; through a [BN][BM + 4] tile in the stages' memory
 * (when it fits there) each warp stores 32 consecutive outputs of one column. */
static bool wg_staged_epilogue(const Emit *E) {
  const KrNest *n = E->n;
  const KrContraction *c = &E->c;
  if (E->wt || !E->smem || c->out < 0 || (size_t)c->out >= n->refs.len) return false;
  int inner_m = c->group[0][c->ngroup[0] - 1];
  size_t tile = (size_t)E->s->bn * ((size_t)E->s->bm + 4) * 4;
  return kr_nest_coef_is(&n->refs.data[c->out].index, inner_m, 1) && tile <= E->smem_bytes;
}

/* The outputs' reads of an array by the n axis alone (a bias b[k]), outside the k loop and never written: each
 * output read its element from global memory, 48 loads a thread a tile waited on (conv_relu_maxpool's epilogue);
 * instead the block's BN elements are put in shared memory once a tile, between the barriers the staged epilogue
 * has, and its outputs read them there (E->epi, which emit_output_at applies). A single n axis only. */
static void stage_by_n(Emit *E, int depth) {
  const KrNest *n = E->n;
  E->epi.len = 0;
  /* 8 KiB: more than the static tables of any schedule (the divisors, the index table, the patch tables) */
  if (E->c.ngroup[1] != 1 || E->smem_bytes + 8192 + (size_t)E->s->bn * 8 > KR_SM90_SHARED_BYTES) return;
  int ax = E->c.group[1][0];
  const char *axn = n->axes.data[ax].name;
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (r->write || r->in_loop || r->cond || form_mask(&r->index) != 1u << ax) continue;
    bool written = false;
    for (size_t j = 0; j < n->refs.len; j++) written |= n->refs.data[j].write && strcmp(n->refs.data[j].array, r->array) == 0;
    if (written) continue;
    const char *type = n->kernel->params.data[r->param].base, *arr = fresh(E, kr_arena_printf(E->a, "%s_n", r->array));
    const char *ni = fresh(E, "ni");
    KrBuf g = {0};
    for (size_t j = 0; j < n->guards.len; j++)
      if (n->guards.data[j].naxes == 1 && uses(n->guards.data[j].text, axn))
        kr_buf_printf(&g, "%s%s", g.len ? " && " : "", n->guards.data[j].text);
    line(E, depth, "// krewrite tile: '%s' by %s alone, the block's %s of it in shared memory for the epilogue", r->array, axn, E->BN);
    line(E, depth, "__shared__ %s %s[%s];", type, arr, E->BN);
    line(E, depth, "for (int %s = %s; %s < %s; %s += %s) {", ni, E->tid, ni, E->BN, ni, E->NT);
    const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
    set_role(E, value, 1, kr_arena_printf(E->a, "%s + %s", E->n0, ni));
    const char *body = g.len ? kr_arena_printf(E->a, "%s[%s] = (%s) ? %s : (%s)0;\n", arr, ni, g.data, node_text(E, r->node), type)
                             : kr_arena_printf(E->a, "%s[%s] = %s;\n", arr, ni, node_text(E, r->node));
    kr_buf_free(&g);
    scope_body(E, depth + 1, value, body);
    line(E, depth, "}");
    sub_add(E, &E->epi, r->node, kr_arena_printf(E->a, "%s[%s - %s]", arr, axn, E->n0));
  }
}

static void emit_wg_epilogue_staged(Emit *E, int depth, const char *scale) {
  const char *ot = fresh(E, "out_tile");
  int nn = E->wcols;
  line(E, depth, "// krewrite tensor_core: the accumulators through a [BN][BM + 4] tile in shared memory, so that a warp "
       "stores 32 consecutive outputs of one column (the output runs along m)");
  if (E->s->stages > 1) line(E, depth, "__pipeline_wait_prior(0);");
  line(E, depth, "__syncthreads();");
  line(E, depth, "float (*%s)[%s + 4] = reinterpret_cast<float (*)[%s + 4]>(%s);", ot, E->BM, E->BM, E->smem);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %d; %s++) {", E->ia, E->ia, nn / 8, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < 4; %s++)", E->v, E->v, E->v);
  line(E, depth + 2, "%s[%s * 8 + %s * 2 + %s %% 2][%s + %s + (%s / 2) * 8] = %s%s[%s * 4 + %s];", ot, E->ia, E->tq, E->v,
       E->wrow0, E->gq, E->v, scale, E->cf, E->ia, E->v);
  line(E, depth, "}");
  bool walk_only = E->pool && E->pool->late && !*scale;
  if (!walk_only) stage_by_n(E, depth);
  line(E, depth, "__syncthreads();");
  if (walk_only) {   /* the raw accumulators are what the walk reads */
    line(E, depth, "// krewrite fuse: '%s' read by %s alone: not stored; its epilogue applied to each window's maximum",
         E->pool->array, E->pool->cn->kernel->name);
    emit_pool(E, depth, ot);
    return;
  }
  if (E->pool) E->pool->late = false;
  const char *e = fresh(E, "eo"), *mm = fresh(E, "mo"), *nc = fresh(E, "no"), *quo, *rem;
  long count = (long)E->s->bm * E->s->bn;   /* a thread's row the same in every step where split_elem can */
  split_elem(E, count, e, e, E->BM, E->s->bm, &quo, &rem);
  const char **value = kr_arena_alloc(E->a, (E->n->axes.len + 1) * sizeof *value);
  bool fixed = count % block_threads(E->s) == 0 && !uses(rem, e);
  if (fixed) {   /* the thread's output row the same in every step: its m axes recovered once, here */
    line(E, depth, "const int %s = %s;", mm, rem);
    set_role(E, value, 0, kr_arena_printf(E->a, "%s + %s", E->m0, mm));
    for (int g = 0; g < E->c.ngroup[0]; g++) {
      int ax = E->c.group[0][g];
      const char *name = fresh(E, kr_arena_printf(E->a, "out_%s", E->n->axes.data[ax].name));
      line(E, depth, "const int %s = %s;", name, value[ax]);
      value[ax] = name;
    }
  }
  if (count % block_threads(E->s) == 0) {
    line(E, depth, "#pragma unroll 4");   /* 4 outputs' loads of the tile and stores in flight: 1% of conv_relu_maxpool */
    line(E, depth, "for (int %s = 0; %s < %s * %s / %s; %s++) {", e, e, E->BM, E->BN, E->NT, e);
  } else
    line(E, depth, "for (int %s = %s; %s < %s * %s; %s += %s) {", e, E->tid, e, E->BM, E->BN, e, E->NT);
  if (fixed) {
    line(E, depth + 1, "const int %s = %s;", nc, quo);
  } else {
    line(E, depth + 1, "const int %s = %s, %s = %s;", mm, rem, nc, quo);
    set_role(E, value, 0, kr_arena_printf(E->a, "%s + %s", E->m0, mm));
  }
  set_role(E, value, 1, kr_arena_printf(E->a, "%s + %s", E->n0, nc));
  if (E->pool) E->pool_tail = kr_arena_printf(E->a, "%s[%s][%s] = %s;", ot, nc, mm, E->pool->value);
  emit_output_at(E, depth + 1, kr_arena_printf(E->a, "%s[%s][%s]", ot, nc, mm), value);
  E->epi.len = 0;
  line(E, depth, "}");
  if (E->pool) {
    E->pool_tail = NULL;
    emit_pool(E, depth, ot);
  }
}

/* After the k loop: accumulator 4i + v of a thread is the product's row g + (v / 2) * 8 of its warp's 16,
 * column 8i + 2t + v % 2; each goes through the kernel's own guard and epilogue (through shared memory
 * when wg_staged_epilogue says so). */
static void emit_wg_epilogue(Emit *E, int depth) {
  const MmaProduct *p = E->prod;
  int nn = E->wcols;
  KrBuf sc = {0};
  for (size_t i = 0; i < p->scale.len; i++) kr_buf_printf(&sc, "(%s) * ", p->scale.data[i]);
  if (wg_staged_epilogue(E)) {
    emit_wg_epilogue_staged(E, depth, sc.data ? sc.data : "");
    kr_buf_free(&sc);
    return;
  }
  line(E, depth, "// krewrite tensor_core: each thread's outputs from its accumulators (rows %s and %s + 8 of its warp's, "
       "columns 8i + 2%s and 8i + 2%s + 1), under the kernel's own guard", E->gq, E->gq, E->tq, E->tq);
  line(E, depth, "#pragma unroll");
  line(E, depth, "for (int %s = 0; %s < %d; %s++) {", E->ia, E->ia, nn / 8, E->ia);
  line(E, depth + 1, "#pragma unroll");
  line(E, depth + 1, "for (int %s = 0; %s < 4; %s++) {", E->v, E->v, E->v);
  const char *rowv = kr_arena_printf(E->a, "%s + %s + (%s / 2) * 8", E->wrow0, E->gq, E->v);
  const char *colv = kr_arena_printf(E->a, "%s * 8 + %s * 2 + %s %% 2", E->ia, E->tq, E->v);
  const char *acc = kr_arena_printf(E->a, "%s%s[%s * 4 + %s]", sc.data ? sc.data : "", E->cf, E->ia, E->v);
  if (E->wt)
    emit_output(E, depth + 2, acc, kr_arena_printf(E->a, "%s + %s", E->m0, colv), kr_arena_printf(E->a, "%s + %s", E->n0, rowv));
  else
    emit_output(E, depth + 2, acc, kr_arena_printf(E->a, "%s + %s", E->m0, rowv), kr_arena_printf(E->a, "%s + %s", E->n0, colv));
  line(E, depth + 1, "}");
  line(E, depth, "}");
  kr_buf_free(&sc);
}

/* The headers the fragments need, and the precision the schedule computes in: tf32 rounds both
 * operands to 10 bits of mantissa, fp16 and bf16 lower fp32 operands to 10 and 7 bits (and run
 * exactly on operands stored so), 3xtf32 keeps fp32-grade accuracy (bench/results: its error
 * against float64). Only the tensor_core pass itself declares it; later passes re-emit the same
 * arithmetic. */
static void mma_finish(Emit *E) {
  KrPassCtx *cx = E->cx;
  const char *text = cx->src->text;
  KrMma m = E->s->mma;
  if ((m == KR_MMA_FP16) && !strstr(text, "cuda_fp16.h")) kr_pass_replace(cx, 0, 0, "#include <cuda_fp16.h>\n");
  if ((m == KR_MMA_BF16) && !strstr(text, "cuda_bf16.h")) kr_pass_replace(cx, 0, 0, "#include <cuda_bf16.h>\n");
  if (E->s->mma_wg) wg_helpers(E);
  else if (E->s->mma_ptx) ptx_helpers(E);
  else if (!strstr(text, "<mma.h>")) kr_pass_replace(cx, 0, 0, "#include <mma.h>\n");
  if (cx->pass->precision != KR_PRECISION_PARAM) return;
  bool f32 = is_f32(E->prod->a->type);
  if (m == KR_MMA_TF32) {
    cx->precision = KR_PRECISION_LOWERS, cx->tolerance = "1e-3";
    if (E->s->mma_wg)
      kr_pass_assume(cx, "tensor_core: tf32 operands (10-bit mantissa) with fp32 accumulation: '%s' rounded to nearest, "
                         "'%s' (read by wgmma from shared memory) truncated by the tensor cores", E->wr->array, E->wx->array);
    else
      kr_pass_assume(cx, "tensor_core: tf32 operands (10-bit mantissa, rounded to nearest) with fp32 accumulation");
  } else if ((m == KR_MMA_FP16 || m == KR_MMA_BF16) && f32) {
    cx->precision = KR_PRECISION_LOWERS, cx->tolerance = m == KR_MMA_FP16 ? "1e-3" : "1e-2";
    kr_pass_assume(cx, "tensor_core: fp32 operands rounded to %s as they are staged (%s), fp32 accumulation; values "
                       "beyond the format's range become infinite", mma_names[m],
                   m == KR_MMA_FP16 ? "10-bit mantissa, 5-bit exponent" : "7-bit mantissa, fp32's exponent range");
  } else if (m == KR_MMA_3XTF32) {
    /* Measured on the H200 (bench/results/tensor-2026-12-02.json): at 4096^3 its output differs from
     * the naive fp32 kernel's by 1.22e-6 (relative L2), because the naive kernel's own error against
     * float64 is 1.15e-6 there; no fp32 reordering holds matmul's 1e-6 at that size. So it is declared
     * as lowering, with the tolerance an fp32-grade sum needs against an fp32 original. */
    cx->precision = KR_PRECISION_LOWERS, cx->tolerance = "5e-6";
    kr_pass_assume(cx, "tensor_core: 3xtf32 splits each fp32 operand into a tf32 value and a tf32 residual and adds "
                       "three products (the residuals' product, about 2^-22 of each term, is dropped), each k step's "
                       "sum added to the total in fp32: fp32-grade accuracy, the sum reassociated");
  } else {
    kr_pass_assume(cx, "tensor_core: %s operands multiplied exactly, accumulated in fp32 in the tensor cores' order",
                   mma_names[m]);
  }
}

/* ---- split_k: parts of the k range and their exact combine ---------------------------------------------------- */

/* sizeof of an accumulator type, or 0 when krewrite does not know it (a typedef, a struct). */
static size_t type_bytes(const char *type) {
  static const struct { const char *name; size_t bytes; } known[] = {
    {"float", 4}, {"double", 8}, {"int", 4}, {"unsigned", 4}, {"unsigned int", 4}, {"int32_t", 4},
    {"uint32_t", 4}, {"long long", 8}, {"unsigned long long", 8}, {"int64_t", 8}, {"uint64_t", 8},
    {"long", 8}, {"half", 2}, {"__half", 2}, {"__nv_bfloat16", 2}, {"short", 2}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(type, known[i].name) == 0) return known[i].bytes;
  return 0;
}

/* The accumulators' type: the local accumulator's, or the element type of the global one. */
static const char *accumulator_type(const KrNest *n) {
  if (n->acc) return n->acc_type;
  const char *array = n->refs.data[n->acc_ref].array;
  for (size_t p = 0; p < n->kernel->params.len; p++)
    if (strcmp(n->kernel->params.data[p].name, array) == 0) return n->kernel->params.data[p].base;
  return "float";
}

/* The z extent of a rewritten launch without split_k: the original's where the kernel reads a batch
 * index (KrNest.batch), else 1. */
static const char *grid_z(const KrNest *n) { return n->batch ? "grid.z" : "1"; }

const char *kr_schedule_split_why(const KrNest *n, KrArena *a) {
  if (n->reduce < 0) return "the nest has no reduction loop";
  if (n->batch) return "the kernel reads blockIdx.z as a batch index, and the parts would be the launch's grid.z";
  const char *t = accumulator_type(n);
  if (!type_bytes(t))
    return kr_arena_printf(a, "the accumulator's type '%s' has no size krewrite knows, so the workspace of partial "
                              "results cannot be sized", t);
  return NULL;
}

/* Why the schedule's parts cannot be combined exactly, or NULL. */
static const char *split_check(const KrSchedule *s, const KrNest *n, KrArena *a) {
  if (s->parts <= 1) return NULL;
  if (s->parts > KR_SCHED_MAX_PARTS) return kr_arena_printf(a, "split_k takes 2 to %d parts", KR_SCHED_MAX_PARTS);
  const char *why = kr_schedule_split_why(n, a);
  return why ? kr_arena_printf(a, "split_k: %s", why) : NULL;
}

/* Part blockIdx.z of gridDim.z walks a run of whole k tiles, as even as the count allows (the
 * runs differ by at most one tile; with fewer tiles than parts, some runs are empty). Sets the
 * k range the k loop walks. */
static void split_range(Emit *E, int depth) {
  const KrNestAxis *k = &E->n->axes.data[E->c.k];
  const char *kt = fresh(E, "k_tiles"), *tb = fresh(E, "t_begin"), *te = fresh(E, "t_end"),
             *kb = fresh(E, "k_begin"), *ke = fresh(E, "k_end");
  line(E, depth, "// krewrite split_k: part blockIdx.z of gridDim.z takes the k tiles [%s, %s)", tb, te);
  line(E, depth, "const int %s = (%s) > (%s) ? ((%s) - (%s) + %s - 1) / %s : 0;", kt, k->hi, k->lo, k->hi, k->lo,
       E->BK, E->BK);
  line(E, depth, "const int %s = (int)((long long)blockIdx.z * %s / gridDim.z);", tb, kt);
  line(E, depth, "const int %s = (int)((long long)(blockIdx.z + 1) * %s / gridDim.z);", te, kt);
  line(E, depth, "const int %s = (%s) + %s * %s;", kb, k->lo, tb, E->BK);
  if (E->s->stages == 1)   /* the double-buffered loop counts tiles instead */
    line(E, depth, "const int %s = %s < %s ? ((%s) + %s * %s < (%s) ? (%s) + %s * %s : (%s)) : %s;", ke, tb, te,
         k->lo, te, E->BK, k->hi, k->lo, te, E->BK, k->hi, kb);
  E->k_lo = kb;
  E->k_end = ke;
  E->k_tiles = kr_arena_printf(E->a, "%s - %s", te, tb);
}

/* With more than one part, each block leaves its accumulators in the workspace (partials[part]
 * [tile][TM*TN][NT], so that the threads of a warp write and read consecutive elements), and the
 * last block of a tile to arrive, counted by an atomic per tile, adds them up in the order of the
 * parts and goes on to the kernel's own epilogue; the others are done. The order of the parts is
 * fixed, so the result is the same on every run, whichever block arrives last. */
static void split_combine(Emit *E, int depth, const char *ws, const char *acc_type) {
  const char *tile = fresh(E, "tile"), *tiles = fresh(E, "tiles"), *arrived = fresh(E, "arrived"),
             *last = fresh(E, "last_part"), *p = fresh(E, "p");
  const char *accv = kr_arena_printf(E->a, "%s[%s][%s]", E->acc, E->ia, E->ib);
  const char *slot = kr_arena_printf(E->a, "(%s * %s + %s) * %s + %s", E->ia, E->TN, E->ib, E->NT, E->tid);
  const char *x = kr_arena_printf(E->a, "__ldcg(&%s[((size_t)%s * %s + %s) * (%s * %s) + %s])", ws, p, tiles, tile,
                                  E->BM, E->BN, slot);
  const char *sum = E->n->op == KR_RED_SUM ? kr_arena_printf(E->a, "%s + %s", accv, x)
                                           : kr_arena_printf(E->a, "%s(%s, %s)", E->n->combine_fn, accv, x);
  line(E, depth, "// krewrite split_k: the parts meet in the workspace; the tile's last block to arrive adds them in order");
  line(E, depth, "if (gridDim.z > 1) {");
  int d = depth + 1;
  line(E, d, "__shared__ bool %s;", last);
  line(E, d, "const int %s = blockIdx.y * gridDim.x + blockIdx.x, %s = gridDim.x * gridDim.y;", tile, tiles);
  line(E, d, "unsigned int *%s = reinterpret_cast<unsigned int *>(%s + (size_t)gridDim.z * %s * (%s * %s));", arrived,
       ws, tiles, E->BM, E->BN);
  line(E, d, "#pragma unroll");
  line(E, d, "for (int %s = 0; %s < %s; %s++)", E->ia, E->ia, E->TM, E->ia);
  line(E, d + 1, "#pragma unroll");
  line(E, d + 1, "for (int %s = 0; %s < %s; %s++) %s[((size_t)blockIdx.z * %s + %s) * (%s * %s) + %s] = %s[%s][%s];",
       E->ib, E->ib, E->TN, E->ib, ws, tiles, tile, E->BM, E->BN, slot, E->acc, E->ia, E->ib);
  line(E, d, "__threadfence();");
  line(E, d, "__syncthreads();");
  line(E, d, "if (%s == 0) %s = atomicAdd(&%s[%s], 1u) == gridDim.z - 1;", E->tid, last, arrived, tile);
  line(E, d, "__syncthreads();");
  line(E, d, "if (!%s) return;", last);
  line(E, d, "__threadfence();");
  line(E, d, "// krewrite split_k: the total in the accumulators, part by part (each part's loads at once)");
  line(E, d, "#pragma unroll");
  line(E, d, "for (int %s = 0; %s < %s; %s++)", E->ia, E->ia, E->TM, E->ia);
  line(E, d + 1, "#pragma unroll");
  line(E, d + 1, "for (int %s = 0; %s < %s; %s++) %s = %s;", E->ib, E->ib, E->TN, E->ib, accv, identity(E, acc_type));
  line(E, d, "for (int %s = 0; %s < (int)gridDim.z; %s++) {", p, p, p);
  line(E, d + 1, "#pragma unroll");
  line(E, d + 1, "for (int %s = 0; %s < %s; %s++)", E->ia, E->ia, E->TM, E->ia);
  line(E, d + 2, "#pragma unroll");
  line(E, d + 2, "for (int %s = 0; %s < %s; %s++) %s = %s;", E->ib, E->ib, E->TN, E->ib, accv, sum);
  line(E, d, "}");
  line(E, d, "// krewrite split_k: the counter back at zero for the next launch");
  line(E, d, "if (%s == 0) %s[%s] = 0;", E->tid, arrived, tile);
  line(E, depth, "}");
}

/* The workspace as the kernel's last parameter (defaulted, so that existing launches still
 * compile; the launch change says what to pass), unless an earlier split_k appended it. */
static void split_param(Emit *E, const char *ws, const char *acc_type) {
  const KrKernel *k = E->cx->kernel;
  if (k->params.len == 0) return;
  const KrParam *lastp = &k->params.data[k->params.len - 1];
  if (strcmp(lastp->name, ws) == 0) return;
  kr_pass_replace(E->cx, ts_node_end_byte(lastp->node), ts_node_end_byte(lastp->node),
                  kr_arena_printf(E->a, ", %s *%s = nullptr", acc_type, ws));
}

/* The workspace's bytes over the launch's symbols: per tile of the grid, a partial result per
 * part and output, and an arrival counter. */
static const char *split_workspace(Emit *E, const char *gx, const char *gy, const char *acc_type) {
  const KrSchedule *s = E->s;
  return kr_arena_printf(E->a, "cdiv(%s, %d) * cdiv(%s, %d) * (%d * %d * %zu + 4)", gx, s->bn, gy, s->bm, s->parts,
                         s->bm * s->bn, type_bytes(acc_type));
}

/* ---- The whole kernel ----------------------------------------------------------------------------------------- */

/* Division by a run-time divisor d >= 1 of 0 <= x < 2^31 as a multiply-high, an add and a shift
 * (Granlund and Montgomery's method): the groups of implicit_gemm recover their axes with it. */
static const char kFastdiv[] =
  "// krewrite implicit_gemm: x / d and x % d for 0 <= x < 2^31 and a run-time d >= 1, as a multiply-high, an add and\n"
  "// a shift (Granlund and Montgomery): mul = 2^32 * (2^shift - d) / d + 1 with 2^shift the least power of two >= d\n"
  "struct kr_fastdiv {\n  unsigned mul, shift;\n  int d;\n};\n\n"
  "static __device__ __forceinline__ kr_fastdiv kr_fastdiv_of(int d) {\n"
  "  kr_fastdiv f;\n  f.d = d;\n  f.shift = 32 - __clz(d - 1);\n"
  "  f.mul = (unsigned)(((1ull << 32) * ((1ull << f.shift) - (unsigned long long)d)) / (unsigned long long)d + 1);\n"
  "  return f;\n}\n\n"
  "static __device__ __forceinline__ int kr_div(int x, kr_fastdiv f) {\n"
  "  return (int)((__umulhi((unsigned)x, f.mul) + (unsigned)x) >> f.shift);\n}\n\n"
  "static __device__ __forceinline__ int kr_mod(int x, kr_fastdiv f) { return x - kr_div(x, f) * f.d; }\n\n";

/* True when a zero in every staged tile element beyond the bounds leaves the result unchanged: a
 * sum whose update is a product with a staged factor that moves with k. */
static bool zero_fill_exact(Emit *E) {
  const KrNest *n = E->n;
  if (n->op != KR_RED_SUM) return false;
  KrNodes factors = {0};
  kr_nest_factors(E->t, n->update_value, E->a, &factors);
  for (size_t f = 0; f < factors.len; f++) {
    TSNode x = factors.data[f];
    for (size_t i = 0; i < n->refs.len; i++)
      if (ts_node_eq(n->refs.data[i].node, x) && n->refs.data[i].in_loop && staged(E->s, n->refs.data[i].array)) return true;
  }
  return false;
}

/* The update under a condition (a convolution's padding) is computed by zero-filling, where the
 * condition fails, the loads of a staged factor of the product whose axes the condition reads: sets
 * E->cond_st; NULL, or why it cannot. */
static const char *cond_operand(Emit *E, uint32_t *at) {
  const KrNest *n = E->n;
  if (!E->s->implicit) return "the accumulator's update is under a condition";
  if (n->op != KR_RED_SUM) return "the update under a condition is a max or a min; a zero load would change it";
  const char *cond = node_text(E, n->update_cond);
  unsigned need = 0;
  for (size_t i = 0; i < n->axes.len; i++)
    if (uses(cond, n->axes.data[i].name)) need |= 1u << i;
  for (size_t i = 0; i < n->loop_derived.len; i++)
    if (declares_used(E, n->loop_derived.data[i], cond)) need |= n->loop_derived_axes.data[i];
  for (size_t i = 0; i < n->derived.len; i++) {
    TSNode id = ts_node_child_by_field_name(ts_node_child_by_field_name(n->derived.data[i], "declarator", 10), "declarator", 10);
    if (!ts_node_is_null(id) && uses(cond, node_text(E, id))) need |= n->derived_axes.data[i];
  }
  KrNodes factors = {0};
  kr_nest_factors(E->t, n->update_value, E->a, &factors);
  for (size_t f = factors.len; f-- > 0;) {   /* the last factor first, as it always was */
    TSNode x = factors.data[f];
    for (int j = 0; j < E->nst; j++) {
      const Staged *st = &E->st[j];
      if (!ts_node_eq(st->ref->node, x) || st->kind == OP_K) continue;
      unsigned have = 0;
      for (int r = 0; r < 3; r++)
        if (r == 2 || r == (st->kind == OP_M ? 0 : 1))
          for (int i = 0; i < E->c.ngroup[r]; i++) have |= 1u << E->c.group[r][i];
      if ((need & ~have) == 0) return E->cond_st = st, NULL;
    }
  }
  *at = ts_node_start_byte(n->update_cond);
  return kr_arena_printf(E->a, "implicit_gemm: the update's condition '%s' reads axes that no staged factor of the product changes with "
                               "(its loads would be zero-filled where it fails)", cond);
}

const char *kr_schedule_indent_unit(const KrTree *t, const KrKernel *k) {
  TSNode first = ts_node_named_child(k->body, 0);
  if (ts_node_is_null(first)) return "  ";
  const char *s = t->src->text;
  uint32_t at = ts_node_start_byte(first), b = at;
  while (b > 0 && s[b - 1] != '\n') b--;
  if (at == b || s[b] == '\t') return at > b && s[b] == '\t' ? "\t" : "  ";
  static char units[9][9] = {"", " ", "  ", "   ", "    ", "     ", "      ", "       ", "        "};
  uint32_t w = at - b;
  return units[w > 8 ? 2 : w];
}

static const char *indent_unit(const KrTree *t, const KrKernel *k) { return kr_schedule_indent_unit(t, k); }

static const char *launch_expr(const KrTree *t, const KrKernel *k, KrLoops *lx, TSNode bound, KrArena *a, bool *ok, int depth);

const char *kr_schedule_launch_expr(const KrTree *t, const KrKernel *k, KrLoops *lx, TSNode bound, KrArena *a, bool *ok) {
  return launch_expr(t, k, lx, bound, a, ok, 0);
}

static const char *launch_expr(const KrTree *t, const KrKernel *k, KrLoops *lx, TSNode bound, KrArena *a, bool *ok, int depth) {
  long long v;
  if (ts_node_is_null(bound)) return *ok = false, "";
  if (kr_loops_const(lx, bound, &v)) return kr_arena_printf(a, "%lld", v);
  KrBuf b = {0};
  const char *src = t->src->text;
  uint32_t at = ts_node_start_byte(bound);
  KrVec(TSNode) stack = {0};
  KrVec(TSNode) ids = {0};
  kr_vec_push(a, &stack, bound);
  while (stack.len) {
    TSNode y = stack.data[--stack.len];
    if (ts_node_symbol(y) == t->sym.identifier) {
      kr_vec_push(a, &ids, y);
      continue;
    }
    if (ts_node_symbol(y) == t->sym.field_expression || ts_node_symbol(y) == t->sym.call_expression ||
        ts_node_symbol(y) == t->sym.subscript_expression)
      *ok = false;
    for (uint32_t c = 0; c < ts_node_named_child_count(y); c++) kr_vec_push(a, &stack, ts_node_named_child(y, c));
  }
  /* The identifiers in source order: kernel parameters become `param.NAME`, constants their values. */
  for (size_t i = 0; i < ids.len; i++)
    for (size_t j = i + 1; j < ids.len; j++)
      if (ts_node_start_byte(ids.data[j]) < ts_node_start_byte(ids.data[i])) {
        TSNode x = ids.data[i];
        ids.data[i] = ids.data[j], ids.data[j] = x;
      }
  for (size_t i = 0; i < ids.len; i++) {
    TSNode y = ids.data[i];
    kr_buf_append(&b, src + at, ts_node_start_byte(y) - at);
    KrBinding bd = kr_resolve(t, k, y);
    const char *name = kr_node_text(t, y, a);
    if (bd.kind == KR_BIND_PARAM) kr_buf_printf(&b, "param.%s", name);
    else if (kr_loops_const(lx, y, &v)) kr_buf_printf(&b, "%lld", v);
    else if (bd.kind == KR_BIND_LOCAL && !ts_node_is_null(bd.value) && depth < 8 && kr_uniform(kr_uniform_new(t, k, a), y, NULL))
      kr_buf_printf(&b, "(%s)", launch_expr(t, k, lx, bd.value, a, ok, depth + 1));   /* `int P = H - KS + 1;` */
    else *ok = false, kr_buf_puts(&b, name);
    at = ts_node_end_byte(y);
  }
  kr_buf_append(&b, src + at, ts_node_end_byte(bound) - at);
  const char *r = kr_text_fold(a, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return r;
}

static const char *launch_extent(Emit *E, const KrNestAxis *x, bool *ok) {
  /* The bound as an expression the runtime evaluates: kernel parameters become `param.NAME`,
   * constants their values. */
  const char *t = kr_schedule_launch_expr(E->t, E->n->kernel, E->lx, x->hi_node, E->a, ok);
  if (x->flat && x->outer) t = kr_arena_printf(E->a, "cdiv(%s, %s)", t, kr_schedule_launch_expr(E->t, E->n->kernel, E->lx, x->div_node, E->a, ok));
  return t;
}

/* The extent of a role, for the launch: the product of its axes'. */
static const char *launch_role(Emit *E, int role, bool *ok) {
  if (E->c.ngroup[role] == 1) return launch_extent(E, &E->n->axes.data[E->c.group[role][0]], ok);
  KrBuf b = {0};
  for (int i = 0; i < E->c.ngroup[role]; i++)
    kr_buf_printf(&b, "%s(%s)", i ? " * " : "", launch_extent(E, &E->n->axes.data[E->c.group[role][i]], ok));
  const char *r = kr_arena_strdup(E->a, b.data);
  kr_buf_free(&b);
  return r;
}

/* Inserts at byte `at` of the output the declarations of the uniform locals that what follows uses
 * (a grid-stride loop's stride, for one, is not used by a tiled kernel). */
static void insert_uniforms(Emit *E, size_t at) {
  const KrNest *n = E->n;
  const char *rest = kr_arena_strndup(E->a, E->o->data + at, E->o->len - at);
  bool *keep = kr_arena_alloc(E->a, (n->uniform.len + 1) * sizeof *keep);
  KrBuf used = {0};
  kr_buf_puts(&used, rest);
  for (size_t i = n->uniform.len; i-- > 0;) {   /* later declarations may use earlier ones */
    const char *d = node_text(E, n->uniform.data[i]);
    TSNode id = ts_node_child_by_field_name(ts_node_child_by_field_name(n->uniform.data[i], "declarator", 10), "declarator", 10);
    keep[i] = ts_node_is_null(id) || uses(used.data, node_text(E, id));
    if (keep[i]) kr_buf_printf(&used, "\n%s", d);
  }
  kr_buf_free(&used);
  E->o->len = at;
  for (size_t i = 0; i < n->uniform.len; i++)
    if (keep[i]) line(E, 1, "%s", node_text(E, n->uniform.data[i]));
  kr_buf_puts(E->o, rest);
}

/* A nest without a reduction (a transpose): the staged reads go through a padded shared tile,
 * loaded in their own contiguous order and read back in the output's, so that both the loads and
 * the stores coalesce. */
static void emit_movement(Emit *E) {
  const KrNest *n = E->n;
  const KrSchedule *s = E->s;
  int nt = s->bm * s->bn < 256 ? s->bm * s->bn : 256;
  line(E, 1, "constexpr int %s = %d, %s = %d, %s = %d;", E->BM, s->bm, E->BN, s->bn, E->NT, nt);
  size_t uniform_at = E->o->len;   /* the uniform locals the kernel uses go here, once it is written */
  Subs subs = {0};
  const char *mm = E->mm, *nn = E->nn;
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  value[E->c.m] = kr_arena_printf(E->a, "%s + %s", E->m0, mm);
  value[E->c.n] = kr_arena_printf(E->a, "%s + %s", E->n0, nn);
  KrVec(const KrNestRef *) st = {0};
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (r->write || !staged(s, r->array)) continue;
    const char *tile = fresh(E, kr_arena_printf(E->a, "%s_tile", r->array));
    line(E, 1, "__shared__ %s %s[%s][%s + %d];", E->n->kernel->params.data[r->param].base, tile, E->BM, E->BN,
         s->pad ? 1 : 0);
    sub_add(E, &subs, r->node, kr_arena_printf(E->a, "%s[%s][%s]", tile, mm, nn));
    kr_vec_push(E->a, &st, r);
    kr_vec_push(E->a, &st, (const KrNestRef *)tile);   /* paired: the ref, then its tile's name */
  }
  line(E, 1, "const int %s = threadIdx.x;", E->tid);
  line(E, 1, "const int %s = blockIdx.y * %s, %s = blockIdx.x * %s;", E->m0, E->BM, E->n0, E->BN);
  for (size_t i = 0; i < st.len; i += 2) {
    const KrNestRef *r = st.data[i];
    const char *tile = (const char *)st.data[i + 1];
    bool m_fast = kr_nest_coef_is(&r->index, E->c.m, 1);
    line(E, 1, "// krewrite tile: '%s' loaded in the order it is stored", r->array);
    line(E, 1, "for (int %s = %s; %s < %s * %s; %s += %s) {", E->e, E->tid, E->e, E->BM, E->BN, E->e, E->NT);
    if (m_fast) line(E, 2, "const int %s = %s %% %s, %s = %s / %s;", mm, E->e, E->BM, nn, E->e, E->BM);
    else line(E, 2, "const int %s = %s / %s, %s = %s %% %s;", mm, E->e, E->BN, nn, E->e, E->BN);
    const char *ref = node_text(E, r->node);
    KrBuf g = {0};
    for (size_t j = 0; j < n->guards.len; j++)
      if (n->guards.data[j].naxes == 1) kr_buf_printf(&g, "%s%s", g.len ? " && " : "", n->guards.data[j].text);
    const char *guard = g.data ? kr_arena_strdup(E->a, g.data) : "true";
    kr_buf_free(&g);
    scope_decls(E, 2, value, kr_arena_printf(E->a, "%s %s", ref, guard));
    line(E, 2, "%s[%s][%s] = (%s) ? %s : (%s)0;", tile, mm, nn, guard, ref, n->kernel->params.data[r->param].base);
    line(E, 1, "}");
  }
  line(E, 1, "__syncthreads();");
  line(E, 1, "// krewrite tile: the outputs in the order they are stored, under the kernel's own guard");
  KrVec(const char *) stmts = {0};
  KrBuf body = {0}, cond = {0};
  for (size_t i = 0; i < n->guards.len; i++) kr_buf_printf(&cond, "%s%s", i ? " && " : "", n->guards.data[i].text);
  kr_buf_printf(&body, "%s\n", cond.data ? cond.data : "");
  for (size_t i = 0; i < n->epilogue.len; i++) {
    kr_vec_push(E->a, &stmts, splice(E, n->epilogue.data[i], &subs));
    kr_buf_printf(&body, "%s\n", stmts.data[stmts.len - 1]);
  }
  line(E, 1, "for (int %s = %s; %s < %s * %s; %s += %s) {", E->e, E->tid, E->e, E->BM, E->BN, E->e, E->NT);
  line(E, 2, "const int %s = %s / %s, %s = %s %% %s;", mm, E->e, E->BN, nn, E->e, E->BN);
  scope_decls(E, 2, value, body.data);
  int d = 2;
  if (cond.len) line(E, d++, "if (%s) {", cond.data);
  for (size_t i = 0; i < stmts.len; i++) line(E, d, "%s", stmts.data[i]);
  if (cond.len) line(E, 2, "}");
  line(E, 1, "}");
  kr_buf_free(&body);
  kr_buf_free(&cond);
  insert_uniforms(E, uniform_at);
}

/* The text of a statement with substitutions, line by line at `depth`: continuation lines keep their
 * indentation relative to the statement's first line. */
static void splice_lines(Emit *E, int depth, TSNode node, const Subs *subs) {
  const char *t = splice_keep(E, node, subs);
  const char *src = E->t->src->text;
  uint32_t b = ts_node_start_byte(node), col = 0;
  while (b > 0 && src[b - 1] != '\n') b--, col++;
  for (const char *p = t; *p;) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    if (len && p[len - 1] == '\r') len--;
    size_t skip = 0;
    if (p != t)
      while (skip < col && skip < len && (p[skip] == ' ' || p[skip] == '\t')) skip++;
    line(E, depth, "%.*s", (int)(len - skip), p + skip);
    p = eol ? eol + 1 : p + len;
  }
}

static const char *plus_text(const char *base, int k, KrArena *a) {
  if (k == 0) return base;
  return kr_arena_printf(a, "%s %c %d", base, k < 0 ? '-' : '+', k < 0 ? -k : k);
}

/* The rows or columns of `h` the loads may read: lo <= v < hi (and never below 0); `last` is the
 * last of a group of 4 starting at v (NULL: one element). */
static const char *box_guard(Emit *E, const Halo *h, int ax, const char *v, const char *last) {
  const KrNestForm *lo = h->box_lo[ax];
  long long c = 0;
  KrNestForm zero = {0};
  bool const_lo = kr_nest_form_offset(lo, &zero, &c);
  const char *low = const_lo ? kr_arena_printf(E->a, "%s >= %lld", v, c > 0 ? c : 0)
                             : kr_arena_printf(E->a, "%s >= 0 && %s >= %s", v, v, kr_nest_form_text(E->n, lo, E->a));
  return kr_arena_printf(E->a, "%s && %s < %s", low, last ? last : v, kr_nest_form_text(E->n, h->box_hi[ax], E->a));
}

/* The index variables of one 16-byte group (or element) e of a halo tile. */
static void halo_group(Emit *E, int depth, const Halo *h, const char *e, const char *groups, int lo_n, const char *row,
                       const char *col) {
  if (h->vec) line(E, depth, "const int %s = %s / %s, %s = (%s %% %s) * 4;", E->mm, e, groups, E->nn, e, groups);
  else line(E, depth, "const int %s = %s / %s, %s = %s %% %s;", E->mm, e, groups, E->nn, e, groups);
  line(E, depth, "const int %s = %s, %s = %s;", row, plus_text(kr_arena_printf(E->a, "%s + %s", E->m0, E->mm), -h->lo_m, E->a),
       col, plus_text(kr_arena_printf(E->a, "%s + %s", E->n0, E->nn), -lo_n, E->a));
}

/* A group that is not copied as 16 bytes: element by element, zero outside what the reads reach. */
static void halo_elements(Emit *E, int depth, const Halo *h, const char *row, const char *col) {
  const char *cv = kr_arena_printf(E->a, "%s + %s", col, E->v);
  line(E, depth, "for (int %s = 0; %s < 4; %s++)", E->v, E->v, E->v);
  line(E, depth + 1, "%s[%s][%s + %s] = (%s && %s) ? %s[%s * %s + %s] : (%s)0;", h->tile, E->mm, E->nn, E->v,
       box_guard(E, h, 0, row, NULL), box_guard(E, h, 1, cv, NULL), h->array, row, h->stride, cv, h->type);
}

/* One halo tile's cooperative load: the tile's 16-byte groups spread over the threads, each copied
 * as 16 bytes when it lies inside the rows and columns the reads reach and the check found the rows
 * aligned, element by element (zero outside) otherwise. When each thread has at most 8 groups, all
 * its 16-byte loads are issued before the first store to shared memory, so that they are in flight
 * together. */
static void emit_halo_load(Emit *E, const Halo *h, const char *rows, const char *cols, int lo_n, int nrows, int ncols) {
  const char *row = fresh(E, "src_row"), *col = fresh(E, "src_col");
  const char *groups = h->vec ? kr_arena_printf(E->a, "(%s / 4)", cols) : cols;
  int nt = E->s->bm * E->s->bn < 256 ? E->s->bm * E->s->bn : 256;
  int loads = (nrows * (ncols / 4) + nt - 1) / nt;
  if (h->vec && loads <= 8) {
    const char *G = fresh(E, kr_arena_printf(E->a, "%s_GROUPS", h->array)), *P = fresh(E, kr_arena_printf(E->a, "%s_LOADS", h->array));
    const char *regs = fresh(E, kr_arena_printf(E->a, "%s_regs", h->array)), *full = fresh(E, kr_arena_printf(E->a, "%s_full", h->array));
    const char *p = fresh(E, "p");
    line(E, 1, "constexpr int %s = %s * %s, %s = (%s + %s - 1) / %s;", G, rows, groups, P, G, E->NT, E->NT);
    line(E, 1, "%s4 %s[%s];", h->type, regs, P);
    line(E, 1, "bool %s[%s];", full, P);
    line(E, 1, "#pragma unroll");
    line(E, 1, "for (int %s = 0; %s < %s; %s++) {", p, p, P, p);
    line(E, 2, "const int %s = %s * %s + %s;", E->e, p, E->NT, E->tid);
    halo_group(E, 2, h, E->e, groups, lo_n, row, col);
    line(E, 2, "%s[%s] = %s && %s < %s && %s && %s;", full, p, h->vec_ok, E->e, G, box_guard(E, h, 0, row, NULL),
         box_guard(E, h, 1, col, kr_arena_printf(E->a, "%s + 3", col)));
    line(E, 2, "if (%s[%s]) %s[%s] = *reinterpret_cast<const %s4 *>(&%s[%s * %s + %s]);", full, p, regs, p, h->type,
         h->array, row, h->stride, col);
    line(E, 1, "}");
    line(E, 1, "#pragma unroll");
    line(E, 1, "for (int %s = 0; %s < %s; %s++) {", p, p, P, p);
    line(E, 2, "const int %s = %s * %s + %s;", E->e, p, E->NT, E->tid);
    line(E, 2, "if (%s >= %s) break;", E->e, G);
    halo_group(E, 2, h, E->e, groups, lo_n, row, col);
    line(E, 2, "if (%s[%s]) {", full, p);
    line(E, 3, "*reinterpret_cast<%s4 *>(&%s[%s][%s]) = %s[%s];", h->type, h->tile, E->mm, E->nn, regs, p);
    line(E, 2, "} else {");
    halo_elements(E, 3, h, row, col);
    line(E, 2, "}");
    line(E, 1, "}");
    return;
  }
  line(E, 1, "for (int %s = %s; %s < %s * %s; %s += %s) {", E->e, E->tid, E->e, rows, groups, E->e, E->NT);
  halo_group(E, 2, h, E->e, groups, lo_n, row, col);
  const char *rg = box_guard(E, h, 0, row, NULL);
  if (!h->vec) {
    line(E, 2, "%s[%s][%s] = (%s && %s) ? %s[%s * %s + %s] : (%s)0;", h->tile, E->mm, E->nn, rg,
         box_guard(E, h, 1, col, NULL), h->array, row, h->stride, col, h->type);
    line(E, 1, "}");
    return;
  }
  line(E, 2, "if (%s && %s && %s) {", h->vec_ok, rg, box_guard(E, h, 1, col, kr_arena_printf(E->a, "%s + 3", col)));
  line(E, 3, "*reinterpret_cast<%s4 *>(&%s[%s][%s]) = *reinterpret_cast<const %s4 *>(&%s[%s * %s + %s]);", h->type,
       h->tile, E->mm, E->nn, h->type, h->array, row, h->stride, col);
  line(E, 2, "} else {");
  halo_elements(E, 3, h, row, col);
  line(E, 2, "}");
  line(E, 1, "}");
}

/* A stencil (a nest without a reduction whose staged reads are the output point plus constant
 * offsets): each staged array's tile with its halo is loaded once per block, then every output of
 * the tile runs the original body with the staged reads taken from the tile. The threads of a warp
 * take consecutive outputs of a row, so both the tile reads and the stores to memory coalesce. */
static void emit_halo(Emit *E, Halo *hs) {
  const KrNest *n = E->n;
  const KrSchedule *s = E->s;
  int nt = s->bm * s->bn < 256 ? s->bm * s->bn : 256;
  line(E, 1, "constexpr int %s = %d, %s = %d, %s = %d;", E->BM, s->bm, E->BN, s->bn, E->NT, nt);
  size_t uniform_at = E->o->len;   /* the uniform locals the kernel uses go here, once it is written */
  const char **rows = kr_arena_alloc(E->a, (size_t)s->nstage * sizeof *rows), **cols = kr_arena_alloc(E->a, (size_t)s->nstage * sizeof *cols);
  int *lon = kr_arena_alloc(E->a, (size_t)s->nstage * sizeof *lon);
  for (int i = 0; i < s->nstage; i++) {
    Halo *h = &hs[i];
    h->tile = fresh(E, kr_arena_printf(E->a, "%s_tile", h->array));
    lon[i] = h->vec ? round4(h->lo_n) : h->lo_n;
    int hin = h->vec ? round4(h->hi_n) : h->hi_n;
    rows[i] = fresh(E, kr_arena_printf(E->a, "%s_ROWS", h->array));
    cols[i] = fresh(E, kr_arena_printf(E->a, "%s_COLS", h->array));
    line(E, 1, "constexpr int %s = %s, %s = %s;", rows[i], plus_text(E->BM, h->lo_m + h->hi_m, E->a), cols[i],
         plus_text(E->BN, lon[i] + hin, E->a));
    line(E, 1, "__shared__ __align__(16) %s %s[%s][%s];", h->type, h->tile, rows[i], cols[i]);
  }
  line(E, 1, "const int %s = threadIdx.x;", E->tid);
  line(E, 1, "const int %s = blockIdx.y * %s, %s = blockIdx.x * %s;", E->m0, E->BM, E->n0, E->BN);
  for (int i = 0; i < s->nstage; i++) {
    Halo *h = &hs[i];
    line(E, 1, "// krewrite tile: '%s' and its halo (rows %d above, %d below; columns %d left, %d right), loaded once",
         h->array, h->lo_m, h->hi_m, h->lo_n, h->hi_n);
    if (h->vec) {
      h->vec_ok = fresh(E, kr_arena_printf(E->a, "%s_vec", h->array));
      line(E, 1, "const bool %s = %s %% 4 == 0 && reinterpret_cast<unsigned long long>(%s) %% 16 == 0;", h->vec_ok,
           h->stride, h->array);
    }
    int nrows = s->bm + h->lo_m + h->hi_m, ncols = s->bn + lon[i] + (h->vec ? round4(h->hi_n) : h->hi_n);
    emit_halo_load(E, h, rows[i], cols[i], lon[i], nrows, ncols);
  }
  line(E, 1, "__syncthreads();");
  /* The body, per output, with the staged reads replaced by tile elements. */
  Subs subs = {0};
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    for (int k = 0; k < s->nstage; k++) {
      if (r->write || strcmp(r->array, hs[k].array) != 0) continue;
      long long dm = 0, dn = 0;
      split_offset(fold_consts(n, coef_form(&r->index, -1, E->a), E->a), fold_consts(n, coef_form(&r->index, E->c.m, E->a), E->a),
                   &dm, &dn);
      sub_add(E, &subs, r->node, kr_arena_printf(E->a, "%s[%s][%s]", hs[k].tile, plus_text(E->mm, (int)dm + hs[k].lo_m, E->a),
                                                 plus_text(E->nn, (int)dn + lon[k], E->a)));
    }
  }
  KrBuf body = {0}, cond = {0};
  for (size_t i = 0; i < n->guards.len; i++) kr_buf_printf(&cond, "%s%s", i ? " && " : "", n->guards.data[i].text);
  kr_buf_printf(&body, "%s\n", cond.data ? cond.data : "");
  for (size_t i = 0; i < n->epilogue.len; i++) kr_buf_printf(&body, "%s\n", splice(E, n->epilogue.data[i], &subs));
  const char **value = kr_arena_alloc(E->a, (n->axes.len + 1) * sizeof *value);
  value[E->c.m] = kr_arena_printf(E->a, "%s + %s", E->m0, E->mm);
  value[E->c.n] = kr_arena_printf(E->a, "%s + %s", E->n0, E->nn);
  line(E, 1, "// krewrite tile: each thread's outputs, a warp along a row, under the kernel's own guard");
  bool even = (s->bm * s->bn) % nt == 0;
  if (even && nt % s->bn == 0) {   /* each thread keeps its column; its rows step by NT / BN */
    const char *mt = fresh(E, "mt"), *ntn = fresh(E, "nt");
    line(E, 1, "const int %s = %s / %s, %s = %s %% %s;", mt, E->tid, E->BN, ntn, E->tid, E->BN);
    line(E, 1, "#pragma unroll");
    line(E, 1, "for (int %s = 0; %s < %s * %s / %s; %s++) {", E->v, E->v, E->BM, E->BN, E->NT, E->v);
    line(E, 2, "const int %s = %s + %s * (%s / %s), %s = %s;", E->mm, mt, E->v, E->NT, E->BN, E->nn, ntn);
  } else {
    line(E, 1, "for (int %s = %s; %s < %s * %s; %s += %s) {", E->e, E->tid, E->e, E->BM, E->BN, E->e, E->NT);
    line(E, 2, "const int %s = %s / %s, %s = %s %% %s;", E->mm, E->e, E->BN, E->nn, E->e, E->BN);
  }
  scope_decls(E, 2, value, body.data);
  int d = 2;
  if (cond.len) line(E, d++, "if (%s) {", cond.data);
  for (size_t i = 0; i < n->epilogue.len; i++) splice_lines(E, d, n->epilogue.data[i], &subs);
  if (cond.len) line(E, 2, "}");
  line(E, 1, "}");
  kr_buf_free(&body);
  kr_buf_free(&cond);
  insert_uniforms(E, uniform_at);
}

/* The kernel's __launch_bounds__ become those of the new launch: the block size the schedule
 * launches (an old bound smaller than it would make the launch fail) and, for a contraction, the
 * blocks per SM that its registers allow. ptxas then keeps the registers within 64K / (threads *
 * blocks): without the second figure an 8 x 8 register tile takes one register more than two
 * blocks of 256 threads allow and the SM runs one block. The estimate counts the accumulators, one
 * column of each register tile and about 48 registers for addresses, indices and loop state. */
void kr_schedule_set_bounds(KrPassCtx *cx, const char *text) {
  TSNode def = cx->kernel->node;
  for (uint32_t i = 0; i < ts_node_named_child_count(def); i++) {
    TSNode c = ts_node_named_child(def, i);
    if (strcmp(ts_node_type(c), "launch_bounds") == 0) {
      kr_pass_replace_node(cx, c, text);
      return;
    }
  }
  TSNode d = ts_node_child_by_field_name(def, "declarator", 10);
  if (ts_node_is_null(d)) return;
  kr_pass_replace(cx, ts_node_start_byte(d), ts_node_start_byte(d), kr_arena_printf(cx->arena, "%s ", text));
}

bool kr_schedule_set_cluster(KrPassCtx *cx, const char *text) {
  const char *t = cx->src->text;
  static const char w[] = "__cluster_dims__";
  uint32_t from = ts_node_start_byte(cx->kernel->node), to = ts_node_start_byte(cx->kernel->body);
  for (uint32_t i = from; i + sizeof w - 1 <= to; i++) {
    if (memcmp(t + i, w, sizeof w - 1) != 0) continue;
    uint32_t j = i + sizeof w - 1;
    while (j < to && t[j] != '(') j++;
    int depth = 0;
    for (; j < to; j++) {
      if (t[j] == '(') depth++;
      else if (t[j] == ')' && --depth == 0) break;
    }
    if (j >= to) return false;
    kr_pass_replace(cx, i, j + 1, text ? text : "");
    return true;
  }
  return false;
}

/* A wgmma thread's registers: its accumulators (the warp tile over 32 lanes), the fragments of the
 * register operand (16 rows or columns a warp) for a whole k tile, held twice (this tile's and the
 * next's, loaded under the products; for 3xtf32 a value and a residual each: 4 registers a k8 step
 * in tf32, 4 a k16 step in fp16 or bf16), and about 48 for addresses, indices and loop state. conv2d's 128 x 96
 * tf32 tile: 48 + 32 + 48 = 128, two blocks of 256 threads, which ptxas fits in 118 registers
 * without spilling, against 142 at one block (0.357 ms against 0.496 on the H200,
 * bench/results/conv-occupancy-2026-12-04.json). */
static long wgmma_registers(const KrSchedule *s) {
  long per_step = s->mma == KR_MMA_FP16 || s->mma == KR_MMA_BF16 ? (long)s->bk / 16 * 4 : (long)s->bk / 8 * 4;
  long frags = 2 * per_step * (s->mma == KR_MMA_3XTF32 ? 2 : 1);
  return (long)s->wm * s->wn / 32 + frags + 48;
}

/* The blocks of a contraction's schedule an SM holds at once, from the registers we estimate a thread
 * needs, its threads and its shared memory (`shared` bytes a block). */
static long blocks_per_sm(const KrSchedule *s, int threads, size_t shared) {
  long est = s->mma_wg ? wgmma_registers(s)
             : s->mma   ? (long)s->wm * s->wn / 32 + (long)(s->wm + s->wn) * s->mma_k / 32 * (s->mma == KR_MMA_3XTF32 ? 2 : 1) + 64
                        : (long)s->tm * s->tn + s->tm + s->tn + 48;
  long blocks = 65536 / ((long)threads * est);
  if (blocks > KR_SM90_MAX_THREADS_PER_SM / threads) blocks = KR_SM90_MAX_THREADS_PER_SM / threads;
  if (shared > 0 && blocks > (long)(KR_SM90_SHARED_PER_SM / (shared + 1024))) blocks = (long)(KR_SM90_SHARED_PER_SM / (shared + 1024));
  return blocks < 1 ? 1 : blocks;
}

static void set_launch_bounds(KrPassCtx *cx, const KrSchedule *s, int threads, size_t shared) {
  const char *text;
  if (cx->nest->reduce < 0) text = kr_arena_printf(cx->arena, "__launch_bounds__(%d)", threads);
  else text = kr_arena_printf(cx->arena, "__launch_bounds__(%d, %ld)", threads, blocks_per_sm(s, threads, shared));
  kr_schedule_set_bounds(cx, text);
}

KrStatus kr_schedule_emit(KrPassCtx *cx, const KrNest *n, const KrTree *nt, const KrSchedule *s) {
  Emit E = {.cx = cx, .n = n, .t = nt, .s = s, .a = cx->arena};
  const char *why;
  if (!kr_schedule_roles(n, s, &E.c, &why, E.a)) return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "%s", why);
  if (n->reduce < 0 && kr_movement_halo(n, s)) {   /* a stencil: refused at the read that has no halo */
    Halo hs[KR_SCHED_MAX_STAGE];
    uint32_t at;
    if ((why = halo_check(s, n, &E.c, hs, &at, E.a))) return kr_pass_skip(cx, at, "%s", why);
  }
  if ((why = kr_schedule_check(s, n, &E.c, E.a))) return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "%s", why);
  E.lx = kr_loops_new(nt, n->kernel, E.a);
  E.unit = indent_unit(nt, n->kernel);
  E.nl = strstr(nt->src->text, "\r\n") ? "\r\n" : "\n";
  const char *names[] = {"BM", "BN", "BK", "TM", "TN", "NT", "STAGES", "tid", "m0", "n0", "tm0", "tn0", "k0", "kk",
                         "kt", "ntiles", "acc", "i", "j", "e", "mm", "v", "nn"};
  const char **slots[] = {&E.BM, &E.BN, &E.BK, &E.TM, &E.TN, &E.NT, &E.STAGES, &E.tid, &E.m0, &E.n0, &E.tm0,
                          &E.tn0, &E.k0, &E.kk, &E.kt, &E.ntiles, &E.acc, &E.ia, &E.ib, &E.e, &E.mm, &E.v, &E.nn};
  for (size_t i = 0; i < n->axes.len; i++) kr_vec_push(E.a, &E.taken, n->axes.data[i].name);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) *slots[i] = fresh(&E, names[i]);
  if (n->reduce >= 0) E.k_lo = n->axes.data[n->reduce].lo, E.k_end = n->axes.data[n->reduce].hi;
  if (E.c.ngroup[2] > 1) E.k_lo = "0", E.k_end = role_extent_from(&E, 2, 0);
  E.gather = s->implicit && (E.c.ngroup[0] > 1 || E.c.ngroup[1] > 1 || E.c.ngroup[2] > 1 || !ts_node_is_null(n->update_cond));
  for (size_t i = 0; i < n->refs.len && E.nst < KR_SCHED_MAX_STAGE; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (!r->in_loop || r->write || !staged(s, r->array) || first_same(n, i, E.a) != i) continue;
    Staged *st = &E.st[E.nst++];
    st->array = r->array;
    st->ref = r;
    ref_kind(n, &E.c, r, &st->kind, E.a);
    st->tile = fresh(&E, kr_arena_printf(E.a, "%s_tile", st->array));
    st->reg = fresh(&E, kr_arena_printf(E.a, "%s_reg", st->array));
    for (size_t p = 0; p < n->kernel->params.len; p++)
      if (strcmp(n->kernel->params.data[p].name, st->array) == 0) st->type = n->kernel->params.data[p].base;
    st->k_fast = st->kind == OP_K || k_unit(n, &E.c, &st->ref->index);
    int out_axis = st->kind == OP_M ? E.c.m : E.c.n, tile = st->kind == OP_M ? s->bm : s->bn;
    size_t eb = elem_bytes(n, st->array);
    bool vec_type = st->type && (eb == 4 ? strcmp(st->type, "float") == 0 || strcmp(st->type, "int") == 0
                                         : s->mma && eb == 2 && (is_f16(st->type) || is_bf16(st->type)));
    int gw = eb ? (int)(16 / eb) : 4;
    st->vec = st->kind != OP_K && !st->k_fast && kr_nest_coef_is(&st->ref->index, out_axis, 1) && tile % gw == 0 && vec_type;
    if (s->mma && st->kind != OP_K && st->k_fast) {   /* a k-major tile, loaded 16 bytes at a time along k */
      st->kmaj = true;
      st->vec = s->bk % gw == 0 && vec_type;
    }
    if (E.gather) st->vec = false;   /* gathered: element by element (the groups' axes have no 16-byte runs) */
    size_t rows, ld, elem;
    tile_dims(s, n, &E.c, r, st->kind, &rows, &ld, &elem);
    st->pad = (int)(ld - (st->kind == OP_K ? (size_t)s->bk : st->kmaj ? (size_t)s->bk : (size_t)tile));
    if (st->vec) st->vec_ok = fresh(&E, kr_arena_printf(E.a, "%s_vec", st->array));
  }
  if (!ts_node_is_null(n->update_cond)) {
    uint32_t at = ts_node_start_byte(n->update_cond);
    if ((why = cond_operand(&E, &at))) return kr_pass_skip(cx, at, "%s", why);
  }
  table_plan(&E);
  E.guard_k = !zero_fill_exact(&E);
  MmaProduct prod = {0};
  if (s->mma) {
    const char *mnames[] = {"WM", "WN", "MM", "MN", "MK", "FM", "FN", "wm0", "wn0", "c_frag", "a_frag", "b_frag",
                            "a_lo", "b_lo", "x", "step_frag", "lane", "g", "t"};
    const char **mslots[] = {&E.WM, &E.WN, &E.MM, &E.MN, &E.MK, &E.FM, &E.FN, &E.wm0, &E.wn0, &E.cf, &E.fa, &E.fb,
                             &E.fa_lo, &E.fb_lo, &E.xv, &E.tf, &E.lane, &E.gq, &E.tq};
    for (size_t i = 0; i < sizeof mnames / sizeof mnames[0]; i++) *mslots[i] = fresh(&E, mnames[i]);
    uint32_t at;
    if ((why = mma_product(&E, &prod, &at))) return kr_pass_skip(cx, at, "%s", why);
    E.prod = &prod;
    E.guard_k = false;   /* a product of staged factors: zeros past the bounds add nothing */
    if (s->mma_wg) {   /* x: the k-major operand (kr_schedule_wg_side chose the side), r: the other */
      E.wt = s->wm == s->bm;
      E.wx = E.wt ? prod.a : prod.b, E.wr = E.wt ? prod.b : prod.a;
      E.wcols = E.wt ? s->bm : s->bn, E.wrow0 = E.wt ? E.wn0 : E.wm0;
      if (!E.wx->kmaj)
        return kr_pass_skip(cx, ts_node_start_byte(E.wx->ref->node), "tensor_core: api wgmma reads '%s' from shared "
                            "memory, which needs it contiguous along k", E.wx->array);
      if (s->mma == KR_MMA_3XTF32) E.wlo = kr_arena_printf(E.a, "%s_lo", E.wx->tile);
    }
  }
  size_t sh_bytes = shared_bytes(s, n, &E.c, E.a);
  if (shared_dynamic(s, sh_bytes)) E.smem = fresh(&E, "smem"), E.smem_bytes = sh_bytes;
  patch_plan(&E);
  pool_plan(&E);
  KrBuf o = {0};
  E.o = &o;
  const KrNestAxis *am = &n->axes.data[E.c.m], *an = &n->axes.data[E.c.n];
  kr_buf_printf(&o, "{%s", E.nl);
  KrBuf staged_names = {0};
  if (n->reduce < 0) {
    kr_buf_free(&o);
    KrBuf mv = {0};
    E.o = &mv;
    kr_buf_printf(&mv, "{%s", E.nl);
    Halo hs[KR_SCHED_MAX_STAGE];
    if (kr_movement_halo(n, s)) {
      uint32_t at;
      halo_check(s, n, &E.c, hs, &at, E.a);
      line(&E, 1, "// krewrite tile: %d x %d outputs of (%s, %s) per block; the staged reads from a shared tile with "
           "its halo", s->bm, s->bn, n->axes.data[E.c.m].name, n->axes.data[E.c.n].name);
      emit_halo(&E, hs);
    } else {
      line(&E, 1, "// krewrite tile: %d x %d elements of (%s, %s) per block, through shared memory", s->bm, s->bn,
           n->axes.data[E.c.m].name, n->axes.data[E.c.n].name);
      emit_movement(&E);
    }
    kr_buf_puts(&mv, "}");
    kr_pass_replace_node(cx, cx->kernel->body, mv.data);
    kr_buf_free(&mv);
    bool ok = true;
    const char *gx = launch_extent(&E, &n->axes.data[E.c.n], &ok), *gy = launch_extent(&E, &n->axes.data[E.c.m], &ok);
    if (!ok) return kr_pass_skip(cx, n->axes.data[E.c.m].at, "the bounds of the axes are not expressions of the kernel's "
                                                              "parameters and constants, so the new grid cannot be computed");
    set_launch_bounds(cx, s, s->bm * s->bn < 256 ? s->bm * s->bn : 256, 0);
    cx->launch.block = kr_arena_printf(E.a, "dim3(%d, 1, 1)", s->bm * s->bn < 256 ? s->bm * s->bn : 256);
    cx->launch.grid = kr_arena_printf(E.a, "dim3(cdiv(%s, %d), cdiv(%s, %d), %s)", gx, s->bn, gy, s->bm, grid_z(n));
    cx->launch.shmem = "0";
    if (kr_movement_halo(n, s))
      kr_pass_assume(cx, "tile: the staged arrays hold the whole box of rows and columns that the stencil's reads "
                         "reach (the halo loads read all of it, corners a 5-point stencil never reads included)");
    return KR_OK;
  }
  for (int i = 0; i < s->nstage; i++) kr_buf_printf(&staged_names, "%s%s", i ? ", " : "", s->stage[i]);
  line(&E, 1, "// krewrite tile: %d x %d outputs of (%s, %s) per block, k tiles of %d%s%s", s->bm, s->bn, am->name,
       an->name, s->bk, s->nstage ? "; staged in shared memory: " : "", staged_names.data ? staged_names.data : "");
  kr_buf_free(&staged_names);
  if (s->mma)
    line(&E, 1, "// krewrite tensor_core: %s on the tensor cores (%s %d x %d x %d), a %d x %d tile per warp", mma_names[s->mma],
         s->mma_wg ? "wgmma" : s->mma_ptx ? "mma.sync" : "WMMA", s->mma_m, s->mma_n, s->mma_k, s->wm, s->wn);
  else if (s->tm * s->tn > 1) line(&E, 1, "// krewrite register_tile: %d x %d outputs per thread, an outer product in registers", s->tm, s->tn);
  if (s->stages > 1) line(&E, 1, "// krewrite double_buffer: %d shared-memory stages filled by cp.async", s->stages);
  line(&E, 1, "constexpr int %s = %d, %s = %d, %s = %d;", E.BM, s->bm, E.BN, s->bn, E.BK, s->bk);
  if (s->stages > 1) line(&E, 1, "constexpr int %s = %d, %s = %d, %s = %d;", E.TM, s->tm, E.TN, s->tn, E.STAGES, s->stages);
  else line(&E, 1, "constexpr int %s = %d, %s = %d;", E.TM, s->tm, E.TN, s->tn);
  line(&E, 1, "constexpr int %s = (%s / %s) * (%s / %s);", E.NT, E.BM, E.TM, E.BN, E.TN);
  if (s->mma) {
    line(&E, 1, "constexpr int %s = %d, %s = %d, %s = %d, %s = %d, %s = %d;", E.WM, s->wm, E.WN, s->wn, E.MM, s->mma_m, E.MN,
         s->mma_n, E.MK, s->mma_k);
    line(&E, 1, "constexpr int %s = %s / %s, %s = %s / %s;", E.FM, E.WM, E.MM, E.FN, E.WN, E.MN);
  }
  for (size_t i = 0; i < n->uniform.len; i++) line(&E, 1, "%s", node_text(&E, n->uniform.data[i]));
  size_t fd_at = o.len;   /* the groups' divisors go here once the body has named them */
  size_t fd_use_at = 0;   /* and their registers here, when not with them (persistent: inside the tile loop) */
  if (E.smem) {
    line(&E, 1, "// krewrite tile: the tiles in %zu bytes of dynamic shared memory (the launch's shmem)", sh_bytes);
    line(&E, 1, "extern __shared__ __align__(%d) unsigned char %s[];", s->mma_wg ? 1024 : 128, E.smem);
  }
  size_t off = 0;
  for (int i = 0; i < E.nst; i++) {
    const Staged *st = &E.st[i];
    const char *type = s->mma ? mma_tile_type(s->mma, st->type) : st->type;
    const char *outer = st->kind == OP_M ? E.BM : E.BN;
    /* The tile's dimensions after the stage: [rows][row length]. */
    const char *dims = st->kind == OP_K ? kr_arena_printf(E.a, "[%s]", E.BK)
                       : st->kmaj       ? kr_arena_printf(E.a, "[%s][%s + %d]", outer, E.BK, st->pad)
                                        : kr_arena_printf(E.a, "[%s][%s + %d]", E.BK, outer, st->pad);
    if (!E.smem) {
      const char *stg = s->stages > 1 ? kr_arena_printf(E.a, "[%s]", E.STAGES) : "";
      line(&E, 1, "__shared__ __align__(16) %s %s%s%s;", type, st->tile, stg, dims);
      continue;
    }
    /* A pointer to the tile's stages ([stage][rows][row]), or with one stage to its rows; a swizzled
     * tile is one array of rows * BK elements per stage (kmaj_at). */
    if (swizzled(&E, st)) dims = kr_arena_printf(E.a, "[%s * %s]", outer, E.BK);
    const char *inner = s->stages > 1 ? dims : strchr(dims + 1, '[') ? strchr(dims + 1, '[') : "";
    if (swizzled(&E, st) && s->stages == 1) inner = "";
    if (*inner) line(&E, 1, "%s (*%s)%s = reinterpret_cast<%s (*)%s>(%s + %zu);", type, st->tile, inner, type, inner, E.smem, off);
    else line(&E, 1, "%s *%s = reinterpret_cast<%s *>(%s + %zu);", type, st->tile, type, E.smem, off);
    size_t rows, ld, elem, align = s->mma_wg ? 1024 : 128;
    tile_dims(s, n, &E.c, st->ref, st->kind, &rows, &ld, &elem);
    off += ((size_t)s->stages * rows * ld * elem + align - 1) / align * align;
  }
  if (E.wlo) {
    line(&E, 1, "// krewrite tensor_core: 3xtf32: the residuals of '%s' past its tf32 truncation (two buffers, its tile's "
         "layout)", E.wx->array);
    line(&E, 1, "float (*%s)[%d * %s] = reinterpret_cast<float (*)[%d * %s]>(%s + %zu);", E.wlo, E.wcols, E.BK, E.wcols, E.BK,
         E.smem, off);
  }
  if (E.tab) {
    line(&E, 1, "// krewrite implicit_gemm: the index table, the k parts of a k tile's indices (two slots)");
    line(&E, 1, "__shared__ __align__(16) int %s[2][%s][%zu];", E.tab, E.BK, tab_width(&E));
  }
  if (E.pt.on) {
    line(&E, 1, "// krewrite implicit_gemm: under '%s''s patches, the fragments' k parts of each stage's tile (by k %% 4, "
         "then k / 4) and the k tile's rows' parts (two slots)", E.wr->array);
    line(&E, 1, "__shared__ __align__(16) int %s[%s][4][%s / 4];", E.pt.ftab, E.STAGES, E.BK);
    line(&E, 1, "__shared__ __align__(16) int %s[2][%s][4];", E.pt.rtab, E.BK);
  }
  line(&E, 1, "const int %s = threadIdx.x;", E.tid);
  if (s->persistent) {   /* the tile loop: what comes before it (the divisors, the shared declarations) is the block's */
    const char *tile = fresh(&E, "kr_tile"), *tiles = fresh(&E, "kr_mtiles");
    line(&E, 1, "// krewrite persistent: the block walks the m tiles blockIdx.y, blockIdx.y + gridDim.y, ...%s",
         s->persistent_down ? ", counted from the last" : "");
    line(&E, 1, "const int %s = (%s + %s - 1) / %s;", tiles, role_extent_from(&E, 0, 0), E.BM, E.BM);
    line(&E, 1, "for (int %s = blockIdx.y; %s < %s; %s += gridDim.y) {", tile, tile, tiles, tile);
    E.shift = 1;
    fd_use_at = o.len;   /* the divisors read from their table in each tile, not 18 registers held across the loop */
    const char *at = s->persistent_down ? kr_arena_printf(E.a, "(%s - 1 - %s)", tiles, tile) : tile;
    line(&E, 1, "const int %s = %s * %s, %s = blockIdx.x * %s;", E.m0, at, E.BM, E.n0, E.BN);
  } else {
    line(&E, 1, "const int %s = blockIdx.y * %s, %s = blockIdx.x * %s;", E.m0, E.BM, E.n0, E.BN);
  }
  if (!s->mma_ptx)   /* the tensor cores' threads find their outputs from their lane */
    line(&E, 1, "const int %s = (%s / (%s / %s)) * %s, %s = (%s %% (%s / %s)) * %s;", E.tm0, E.tid, E.BN, E.TN,
         chunked(s->tm) ? "4" : E.TM, E.tn0, E.tid, E.BN, E.TN, chunked(s->tn) ? "4" : E.TN);
  for (int i = 0; i < E.nst; i++) {
    const Staged *st = &E.st[i];
    if (!st->vec) continue;
    /* Groups of 4 along the contiguous axis start on 16 bytes when every other term of the index
     * is a multiple of 4 and the pointer is 16-byte aligned; otherwise the loads go one by one. */
    KrBuf chk = {0};
    int group_axis = st->kmaj ? E.c.k : st->kind == OP_M ? E.c.m : E.c.n;
    for (size_t ax = 0; ax < n->axes.len; ax++)
      if ((int)ax != group_axis && reads_axis(&st->ref->index, (int)ax))
        kr_buf_printf(&chk, "(%s) %% %d == 0 && ", kr_nest_coef_text(&st->ref->index, (int)ax, E.a), group_width(&E, st));
    const char *c0 = kr_nest_coef_text(&st->ref->index, -1, E.a);
    if (strcmp(c0, "0") != 0) kr_buf_printf(&chk, "(%s) %% %d == 0 && ", c0, group_width(&E, st));
    const char *klo = n->axes.data[E.c.k].lo;   /* groups along k start at the loop's first k */
    if (st->kmaj && strcmp(klo, "0") != 0) kr_buf_printf(&chk, "(%s) %% %d == 0 && ", klo, group_width(&E, st));
    line(&E, 1, "// krewrite tile: '%s' loads 16 bytes at a time when its rows allow it", st->array);
    line(&E, 1, "const bool %s = %sreinterpret_cast<unsigned long long>(%s) %% 16 == 0;", st->vec_ok, chk.data ? chk.data : "",
         st->array);
    kr_buf_free(&chk);
  }
  /* implicit_gemm: a gathered operand's tile row is the same for a thread in every load when the
   * block's threads are a multiple of the tile's rows: its axes are recovered once, here. */
  long nthreads = (long)(s->bm / s->tm) * (s->bn / s->tn);
  for (int i = 0; E.gather && i < E.nst; i++) {
    Staged *st = &E.st[i];
    int role = st->kind == OP_M ? 0 : 1, rows = st->kind == OP_M ? s->bm : s->bn;
    if (st->kind == OP_K || st->k_fast || st->kmaj || st->vec || E.c.ngroup[role] < 2) continue;
    /* An fp32 operand lowered to 16 bits: rows by pairs, each pair one converted 4-byte store. */
    st->pair = E.table && (s->mma == KR_MMA_FP16 || s->mma == KR_MMA_BF16) && is_f32(st->type) && rows % 2 == 0 &&
               nthreads % (rows / 2) == 0;
    if (nthreads % (st->pair ? rows / 2 : rows) != 0) continue;
    const char *row = fresh(&E, kr_arena_printf(E.a, "%s_row", st->array));
    line(&E, 1, "// krewrite implicit_gemm: the axes of this thread's row%s of the %s tile, the same in every load",
         st->pair ? "s (two, converted and stored as a pair)" : "", st->array);
    if (st->pair)
      line(&E, 1, "const int %s = %s + (%s %% (%s / 2)) * 2;", row, st->kind == OP_M ? E.m0 : E.n0, E.tid, st->kind == OP_M ? E.BM : E.BN);
    else
      line(&E, 1, "const int %s = %s + %s %% %s;", row, st->kind == OP_M ? E.m0 : E.n0, E.tid, st->kind == OP_M ? E.BM : E.BN);
    const char **v = kr_arena_alloc(E.a, (n->axes.len + 1) * sizeof *v);
    set_role(&E, v, role, row);
    st->hoist = kr_arena_alloc(E.a, (n->axes.len + 1) * sizeof *st->hoist);
    for (int g = 0; g < E.c.ngroup[role]; g++) {
      int ax = E.c.group[role][g];
      const char *name = fresh(&E, kr_arena_printf(E.a, "%s_%s", st->array, n->axes.data[ax].name));
      line(&E, 1, "const int %s = %s;", name, v[ax]);
      st->hoist[ax] = name;
    }
    if (E.table) table_hoist(&E, st, false);
    if (!st->pair) continue;
    set_role(&E, v, role, kr_arena_printf(E.a, "%s + 1", row));
    st->pair_hoist = kr_arena_alloc(E.a, (n->axes.len + 1) * sizeof *st->pair_hoist);
    for (int g = 0; g < E.c.ngroup[role]; g++) {
      int ax = E.c.group[role][g];
      const char *name = fresh(&E, kr_arena_printf(E.a, "%s_%s", st->array, n->axes.data[ax].name));
      line(&E, 1, "const int %s = %s;", name, v[ax]);
      st->pair_hoist[ax] = name;
    }
    table_hoist(&E, st, true);
  }
  const char *acc_type = accumulator_type(n);
  if (s->mma_wg) {
    emit_wg_head(&E, 1);
  } else if (s->mma && s->mma_ptx) {
    emit_ptx_head(&E, 1);
  } else if (s->mma) {
    emit_mma_head(&E, 1);
  } else {
    line(&E, 1, "%s %s[%s][%s];", acc_type, E.acc, E.TM, E.TN);
    line(&E, 1, "#pragma unroll");
    line(&E, 1, "for (int %s = 0; %s < %s; %s++)", E.ia, E.ia, E.TM, E.ia);
    line(&E, 2, "#pragma unroll");
    line(&E, 2, "for (int %s = 0; %s < %s; %s++) %s[%s][%s] = %s;", E.ib, E.ib, E.TN, E.ib, E.acc, E.ia, E.ib,
         identity(&E, acc_type));
  }
  patch_setup(&E, 1);
  const char *ws = s->parts > 1 ? fresh(&E, "workspace") : NULL;
  if (ws) split_range(&E, 1);
  emit_k_loop(&E, 1);
  if (s->mma && !s->mma_ptx) emit_mma_tail(&E, 1, acc_type);
  if (ws) split_combine(&E, 1, ws, acc_type);
  if (s->mma_wg) emit_wg_epilogue(&E, 1);
  else if (s->mma_ptx) emit_ptx_epilogue(&E, 1);
  else emit_epilogue(&E, 1);
  if (s->persistent) {   /* the next tile's loads reuse the shared memory this one's epilogue reads */
    line(&E, 1, "__syncthreads();");
    E.shift = 0;
    line(&E, 1, "}");
  }
  kr_buf_puts(&o, "}");
  if (E.fd_name.len) {
    KrBuf decl = {0};
    KrBuf *saved = E.o;
    E.o = &decl;
    /* One divisor a thread, into shared memory, then read by all: each multiplier takes a 64-bit
     * division (a software routine of some 70 instructions), and every thread computing every one of
     * them was a tenth of conv2d's instructions under wgmma. */
    size_t nd = E.fd_name.len;
    const char *divs = fresh(&E, "kr_divs"), *de = fresh(&E, "de");
    line(&E, 1, "// krewrite implicit_gemm: the groups' run-time divisors, each division a multiply and a shift (the "
         "multipliers computed once per block, a divisor a thread)");
    line(&E, 1, "__shared__ kr_fastdiv %s[%zu];", divs, nd);
    KrBuf sel = {0};
    for (size_t i = 0; i + 1 < nd; i++) kr_buf_printf(&sel, "%s == %zu ? (%s) : ", de, i, E.fd_text.data[i]);
    kr_buf_printf(&sel, "(%s)", E.fd_text.data[nd - 1]);
    line(&E, 1, "for (int %s = threadIdx.x; %s < %zu; %s += blockDim.x) %s[%s] = kr_fastdiv_of(%s);", de, de, nd, de, divs, de,
         sel.data);
    kr_buf_free(&sel);
    line(&E, 1, "__syncthreads();");
    KrBuf regs = {0};
    E.o = fd_use_at ? &regs : &decl;
    E.shift = fd_use_at ? 1 : 0;
    for (size_t i = 0; i < nd; i++) line(&E, 1, "const kr_fastdiv %s = %s[%zu];", E.fd_name.data[i], divs, i);
    E.o = saved, E.shift = 0;
    if (fd_use_at) {
      const char *tail = kr_arena_strndup(E.a, o.data + fd_use_at, o.len - fd_use_at);
      o.len = fd_use_at;
      kr_buf_append(&o, regs.data, regs.len);
      kr_buf_puts(&o, tail);
    }
    kr_buf_free(&regs);
    const char *rest = kr_arena_strndup(E.a, o.data + fd_at, o.len - fd_at);
    o.len = fd_at;
    kr_buf_append(&o, decl.data, decl.len);
    kr_buf_puts(&o, rest);
    kr_buf_free(&decl);
    if (!strstr(cx->src->text, "struct kr_fastdiv {"))
      kr_pass_replace(cx, ts_node_start_byte(cx->kernel->node), ts_node_start_byte(cx->kernel->node), kFastdiv);
  }
  /* The body of the kernel being rewritten is replaced. */
  kr_pass_replace_node(cx, cx->kernel->body, o.data);
  kr_buf_free(&o);
  bool ok = true;
  const char *gx = launch_role(&E, 1, &ok), *gy = launch_role(&E, 0, &ok);
  if (!ok)
    return kr_pass_skip(cx, am->at, "the bounds '%s' and '%s' are not expressions of the kernel's parameters and "
                                    "constants, so the new grid cannot be computed", an->hi, am->hi);
  size_t static_bytes = (E.tab ? 2 * tab_width(&E) * (size_t)s->bk * 4 : 0) +
                        (E.pt.on ? (size_t)s->stages * (size_t)s->bk * 4 + 2 * (size_t)s->bk * 16 : 0);
  set_launch_bounds(cx, s, (s->bm / s->tm) * (s->bn / s->tn), sh_bytes + static_bytes);
  cx->launch.block = kr_arena_printf(E.a, "dim3(%d, 1, 1)", (s->bm / s->tm) * (s->bn / s->tn));
  if (s->persistent)   /* the blocks the GPU holds at once, at most: sms, the device's SMs, times an SM's share */
    cx->launch.grid = kr_arena_printf(E.a, "dim3(cdiv(%s, %d), min(cdiv(%s, %d), sms * %ld), %s)", gx, s->bn, gy, s->bm,
                                      blocks_per_sm(s, (s->bm / s->tm) * (s->bn / s->tn), sh_bytes + static_bytes),
                                      grid_z(E.n));
  else   /* grid.z: split_k's parts, or the batches a batch index reads (split_k refuses both at once) */
    cx->launch.grid = kr_arena_printf(E.a, "dim3(cdiv(%s, %d), cdiv(%s, %d), %s)", gx, s->bn, gy, s->bm,
                                      ws ? kr_arena_printf(E.a, "%d", s->parts) : grid_z(E.n));
  cx->launch.shmem = E.smem ? kr_arena_printf(E.a, "%zu", sh_bytes) : "0";
  if (s->mma) mma_finish(&E);
  if (ws) {
    cx->launch.workspace = split_workspace(&E, gx, gy, acc_type);
    split_param(&E, ws, acc_type);
    kr_pass_assume(cx, "split_k: the kernel is launched with a zeroed workspace of the launch change's size as its "
                       "argument '%s', used by one launch at a time", ws);
  }
  if (s->stages > 1 && !strstr(cx->src->text, "cuda_pipeline")) kr_pass_replace(cx, 0, 0, "#include <cuda_pipeline.h>\n");
  kr_pass_assume(cx, "tile elements outside the kernel's per-axis guards are never read from memory: the staged "
                     "loads are guarded by them and by the loop bound");
  if (E.pt.on) {   /* 16-byte copies where '%s' is aligned (checked at run time, the gather otherwise) */
    kr_pass_assume_aligned(cx, E.wr->array, 16);
    kr_pass_assume(cx, "implicit_gemm: a patch row of '%s' is read whole, between the bounds the update's condition "
                       "gives its columns, for output columns and filter columns within their extents", E.wr->array);
  }
  return KR_OK;
}

KrStatus kr_schedule_check_contraction(KrPassCtx *cx) {
  KrContraction c;
  const char *why;
  if (cx->schedule && cx->schedule->implicit ? !kr_schedule_roles(cx->nest, cx->schedule, &c, &why, cx->arena)
                                             : !kr_contraction_of(cx->nest, &c, &why, cx->arena))
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "%s: %s", cx->pass->name, why);
  return KR_OK;
}

/* ---- Defaults --------------------------------------------------------------------------------------------------- */

void kr_schedule_defaults(KrSchedule *s, const KrNest *n, KrArena *a) {
  if (s->bm) return;
  KrContraction c;
  const char *why;
  s->bm = s->bn = 32;
  s->bk = 32;
  s->pad = true;
  if (s->tm < 1) s->tm = 1;
  if (s->tn < 1) s->tn = 1;
  if (s->stages < 1) s->stages = 1;
  if (n->reduce < 0 && kr_movement_of(n, &c, &why, a)) {
    for (size_t i = 0; i < n->refs.len && s->nstage < KR_SCHED_MAX_STAGE; i++) {
      const KrNestRef *r = &n->refs.data[i];
      if (r->write) continue;
      bool halo = halo_shaped(n, &c, r->array) && read_offsets(n, r->array, a) > 1;
      if (!halo && (movement_ref_ok(n, &c, r, a) || kr_nest_coef_is(&r->index, c.n, 1))) continue;
      bool dup = false;
      for (int j = 0; j < s->nstage; j++) dup |= strcmp(s->stage[j], r->array) == 0;
      if (!dup) s->stage[s->nstage++] = r->array;
    }
    return;
  }
  if (!kr_schedule_roles(n, s, &c, &why, a)) return;
  for (size_t i = 0; i < n->refs.len && s->nstage < KR_SCHED_MAX_STAGE; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (!r->in_loop || r->write || operand_ok(n, &c, r->array, a)) continue;
    bool dup = false;
    for (int j = 0; j < s->nstage; j++) dup |= strcmp(s->stage[j], r->array) == 0;
    if (!dup) s->stage[s->nstage++] = r->array;
  }
}
