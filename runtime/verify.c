/* runtime/verify.c: the verification protocol of verify.h on the CPU emulator (runtime/emu.h).
 *
 * Per case (test sizes x seeds): allocate the buffers (guarded emulator memory), fill inputs from
 * the seed, poison outputs, run the reference's launches and keep its outputs; refill, poison,
 * run the candidate's launches (with a shuffled thread order when asked) and compare. A case
 * that fails only with the shuffled order is reported as a suspected race. */
#include "runtime/verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/model.h"
#include "recipes/recipe.h"
#include "runtime/emu.h"
#include "runtime/expr.h"
#include "runtime/fill.h"

/* ---- One side (reference or candidate) ----------------------------------------------------------- */

typedef struct Side {
  const char *label;        /* "reference" / "candidate" */
  const char *path, *text;
  size_t len;
  KrArena *model_arena;
  KrSource src;
  KrTree *tree;
  KrModel *model;
  KrEmuModule *mod;
  KrVec(KrLaunchChange) changes;  /* per spec launch */
} Side;

typedef enum { SK_F32, SK_F64, SK_F16, SK_BF16, SK_I8, SK_I16, SK_I32, SK_I64 } ScalarKind;

static bool has_word(const char *s, const char *w) { return strstr(s, w) != NULL; }

static ScalarKind scalar_kind(const char *base) {
  if (has_word(base, "double")) return SK_F64;
  if (has_word(base, "float")) return SK_F32;
  if (has_word(base, "bfloat16")) return SK_BF16;
  if (has_word(base, "half")) return SK_F16;
  if (has_word(base, "long") || has_word(base, "size_t") || has_word(base, "64")) return SK_I64;
  if (has_word(base, "short") || has_word(base, "16")) return SK_I16;
  if (has_word(base, "char") || has_word(base, "bool") || has_word(base, "int8")) return SK_I8;
  return SK_I32;
}

/* The template argument bound to parameter name `t` in "typename T, int BS" / "float, 128". */
static const char *template_arg(const char *params, const char *args, const char *t, KrArena *a) {
  if (!params || !args) return NULL;
  size_t idx = 0;
  const char *p = params;
  for (;;) {
    const char *comma = strchr(p, ',');
    const char *end = comma ? comma : p + strlen(p);
    const char *name = end;
    while (name > p && (name[-1] == ' ')) name--;
    const char *ns = name;
    while (ns > p && (ns[-1] == '_' || (ns[-1] >= 'a' && ns[-1] <= 'z') || (ns[-1] >= 'A' && ns[-1] <= 'Z') || (ns[-1] >= '0' && ns[-1] <= '9'))) ns--;
    if ((size_t)(name - ns) == strlen(t) && strncmp(ns, t, strlen(t)) == 0) break;
    if (!comma) return NULL;
    p = comma + 1, idx++;
  }
  const char *q = args;
  int depth = 0;
  for (size_t i = 0; *q; q++) {
    if (i == idx) break;
    if (*q == '<' || *q == '(') depth++;
    else if (*q == '>' || *q == ')') depth--;
    else if (*q == ',' && depth == 0) i++;
  }
  while (*q == ' ' || *q == ',') q++;
  const char *e = q;
  depth = 0;
  while (*e && !(depth == 0 && *e == ',')) {
    if (*e == '<' || *e == '(') depth++;
    else if (*e == '>' || *e == ')') depth--;
    e++;
  }
  return kr_arena_strndup(a, q, (size_t)(e - q));
}

static const KrKernel *kernel_of(const Side *s, const char *launch_name, KrArena *a) {
  const char *lt = strchr(launch_name, '<');
  char *base = kr_arena_strndup(a, launch_name, lt ? (size_t)(lt - launch_name) : strlen(launch_name));
  size_t n = strlen(base);
  while (n && base[n - 1] == ' ') base[--n] = 0;
  return kr_model_find(s->model, base);
}

static KrStatus side_load(Side *s, KrDiags *d) {
  s->model_arena = kr_arena_new();
  if (kr_source_from_text(&s->src, s->path, s->text, s->len, s->model_arena, d) != KR_OK) return KR_ERR;
  size_t before = d->nerrors;
  s->tree = kr_tree_parse(&s->src, d);
  if (!s->tree || d->nerrors > before) return KR_ERR;
  s->model = kr_model_build(s->tree, s->model_arena);
  return KR_OK;
}

static void side_free(Side *s) {
  kr_emu_module_free(s->mod);
  kr_tree_free(s->tree);
  kr_arena_free(s->model_arena);
}

/* ---- Values of symbols and launch dimensions ----------------------------------------------------- */

typedef struct Env {
  const KrSpec *spec;
  const int64_t *sizes;
  int64_t grid[3], block[3], shmem;
} Env;

static bool env_lookup(void *ctx, const char *name, int64_t *v) {
  Env *e = ctx;
  for (size_t i = 0; i < e->spec->sizes.len; i++)
    if (strcmp(e->spec->sizes.data[i].name, name) == 0) return *v = e->sizes[i], true;
  static const char *const dims[] = {"grid.x", "grid.y", "grid.z", "block.x", "block.y", "block.z"};
  for (int i = 0; i < 6; i++)
    if (strcmp(name, dims[i]) == 0) return *v = i < 3 ? e->grid[i] : e->block[i - 3], true;
  if (strcmp(name, "shmem") == 0) return *v = e->shmem, true;
  return false;
}

static KrStatus eval(Env *e, const char *text, int64_t *v, KrArena *a, const char **why) {
  return kr_expr_eval(text, env_lookup, e, v, a, why);
}

/* Applies a pass's launch change (pass.h: one expression for x, or `dim3(x, y, z)`) to `dims`.
 * All parts are evaluated against the old values before any is replaced. */
static const char *change_dims(Env *e, const char *text, int64_t dims[3], KrArena *a) {
  const char *why;
  int64_t v[3] = {dims[0], dims[1], dims[2]};
  if (strncmp(text, "dim3(", 5) != 0) {
    if (eval(e, text, &v[0], a, &why)) return why;
  } else {
    const char *p = text + 5;
    for (int i = 0; i < 3; i++) {
      int depth = 0;
      const char *q = p;
      while (*q && !(depth == 0 && (*q == ',' || *q == ')'))) {
        if (*q == '(') depth++;
        else if (*q == ')') depth--;
        q++;
      }
      if (eval(e, kr_arena_strndup(a, p, (size_t)(q - p)), &v[i], a, &why)) return why;
      if (*q != ',') break;
      p = q + 1;
    }
  }
  memcpy(dims, v, sizeof v);
  return NULL;
}

/* Launch dimensions for spec launch `l`, with the side's pass-reported changes applied. */
static const char *launch_dims(Env *e, const KrLaunchSpec *l, const KrLaunchChange *c, KrArena *a,
                               KrDim3 *grid, KrDim3 *block, size_t *shmem) {
  const char *why;
  for (int i = 0; i < 3; i++) {
    if (eval(e, l->grid[i], &e->grid[i], a, &why) || eval(e, l->block[i], &e->block[i], a, &why))
      return why;
  }
  if (eval(e, l->shmem, &e->shmem, a, &why)) return why;
  if (c && c->grid && (why = change_dims(e, c->grid, e->grid, a)))
    return kr_arena_printf(a, "pass launch change grid '%s': %s", c->grid, why);
  if (c && c->block && (why = change_dims(e, c->block, e->block, a)))
    return kr_arena_printf(a, "pass launch change block '%s': %s", c->block, why);
  if (c && c->shmem && eval(e, c->shmem, &e->shmem, a, &why))
    return kr_arena_printf(a, "pass launch change shmem '%s': %s", c->shmem, why);
  *grid = (KrDim3){(uint32_t)e->grid[0], (uint32_t)e->grid[1], (uint32_t)e->grid[2]};
  *block = (KrDim3){(uint32_t)e->block[0], (uint32_t)e->block[1], (uint32_t)e->block[2]};
  *shmem = (size_t)e->shmem;
  return NULL;
}

/* ---- Buffers ------------------------------------------------------------------------------------- */

typedef struct Buf {
  const KrBufferSpec *spec;
  size_t count, bytes;
  void *dev;                /* emulator memory */
  void *snapshot;           /* inputs as filled, to check they come back unmodified */
  void *ref;                /* the reference's output */
} Buf;

static const char *bufs_alloc(const KrSpec *s, Env *e, Buf *b, KrArena *a) {
  for (size_t i = 0; i < s->buffers.len; i++) {
    int64_t n;
    const char *why;
    if (eval(e, s->buffers.data[i].count, &n, a, &why)) return why;
    b[i].spec = &s->buffers.data[i];
    b[i].count = (size_t)n;
    b[i].bytes = (size_t)n * kr_dtype_size(b[i].spec->dtype);
    b[i].dev = kr_emu_alloc_elems(b[i].count, kr_dtype_size(b[i].spec->dtype), b[i].spec->name);
    b[i].snapshot = malloc(b[i].bytes);
    b[i].ref = malloc(b[i].bytes);
    if (!b[i].dev || !b[i].snapshot || !b[i].ref) return "out of memory for buffers";
  }
  return NULL;
}

static void bufs_free(Buf *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (b[i].dev) kr_emu_free(b[i].dev);
    free(b[i].snapshot);
    free(b[i].ref);
  }
}

static const Buf *buf_named(const Buf *b, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(b[i].spec->name, name) == 0) return &b[i];
  return NULL;
}

/* Fills inputs (from the seed), zeroes temps, poisons outputs; keeps a snapshot of the inputs. */
static const char *bufs_prepare(const KrSpec *s, Env *e, Buf *b, uint32_t seed, KrArena *a) {
  for (size_t i = 0; i < s->buffers.len; i++) {
    const KrBufferSpec *bs = b[i].spec;
    if (bs->role == KR_ROLE_OUTPUT) {
      kr_fill_poison(b[i].dev, bs->dtype, b[i].count);
      continue;
    }
    int64_t cols = 0, nnz = 0;
    const char *why;
    if (bs->fill.cols && eval(e, bs->fill.cols, &cols, a, &why)) return why;
    if (bs->fill.nnz && eval(e, bs->fill.nnz, &nnz, a, &why)) return why;
    const Buf *rp = bs->fill.rowptr ? buf_named(b, s->buffers.len, bs->fill.rowptr) : NULL;
    const char *err = kr_fill_buffer(bs, b[i].dev, b[i].count, seed, i, rp ? rp->dev : NULL,
                                     rp ? rp->spec->dtype : KR_DT_I32, rp ? rp->count - 1 : 0, cols, nnz);
    if (err) return kr_arena_printf(a, "buffer '%s': %s", bs->name, err);
    memcpy(b[i].snapshot, b[i].dev, b[i].bytes);
  }
  return NULL;
}

/* ---- Running one side ---------------------------------------------------------------------------- */

typedef union Slot {
  void *p;
  float f;
  double d;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  uint16_t u16;
} Slot;

static const char *pack_arg(const Side *s, const KrLaunchSpec *l, size_t j, const KrKernel *k,
                            Env *e, const Buf *b, size_t nb, Slot *slot, KrArena *a) {
  const KrArgSpec *arg = &l->args.data[j];
  if (arg->kind == KR_ARG_BUFFER) {
    slot->p = buf_named(b, nb, arg->text)->dev;
    return NULL;
  }
  double v = arg->number;
  if (arg->kind == KR_ARG_EXPR) {
    int64_t iv;
    const char *why;
    if (eval(e, arg->text, &iv, a, &why)) return why;
    v = (double)iv;
  }
  const KrParam *p = &k->params.data[j];
  const char *base = p->base;
  const char *lt = strchr(l->kernel, '<');
  const char *bound = template_arg(k->template_params, lt ? kr_arena_strndup(a, lt + 1, strlen(lt) - 2) : NULL, base, a);
  if (bound) base = bound;
  (void)s;
  switch (scalar_kind(base)) {
  case SK_F32: slot->f = (float)v; break;
  case SK_F64: slot->d = v; break;
  case SK_F16: slot->u16 = kr_f32_to_f16((float)v); break;
  case SK_BF16: slot->u16 = kr_f32_to_bf16((float)v); break;
  case SK_I8: slot->i8 = (int8_t)v; break;
  case SK_I16: slot->i16 = (int16_t)v; break;
  case SK_I32: slot->i32 = (int32_t)(int64_t)v; break;
  case SK_I64: slot->i64 = (int64_t)v; break;
  }
  return NULL;
}

/* Runs every launch of the spec on one side; returns a failure reason or NULL. */
static const char *run_side(const Side *s, const KrSpec *spec, Env *e, const Buf *b, bool shuffle,
                            uint32_t seed, double timeout, KrArena *a) {
  size_t n = spec->launches.len;
  KrEmuLaunch *ls = kr_arena_alloc(a, n * sizeof *ls);
  for (size_t i = 0; i < n; i++) {
    const KrLaunchSpec *l = &spec->launches.data[i];
    const KrKernel *k = kernel_of(s, l->kernel, a);
    if (!k) return kr_arena_printf(a, "the %s has no kernel '%s'", s->label, l->kernel);
    if (k->params.len != l->args.len)
      return kr_arena_printf(a, "the %s's kernel '%s' takes %zu parameters, the spec passes %zu",
                             s->label, k->name, k->params.len, l->args.len);
    const char *why = launch_dims(e, l, &s->changes.data[i], a, &ls[i].grid, &ls[i].block, &ls[i].shmem);
    if (why) return why;
    Slot *slots = kr_arena_alloc(a, (l->args.len + 1) * sizeof *slots);
    void **args = kr_arena_alloc(a, (l->args.len + 1) * sizeof *args);
    for (size_t j = 0; j < l->args.len; j++) {
      if ((why = pack_arg(s, l, j, k, e, b, spec->buffers.len, &slots[j], a))) return why;
      args[j] = &slots[j];
    }
    ls[i].kernel = l->kernel;
    ls[i].args = args;
    ls[i].nargs = l->args.len;
  }
  KrEmuOptions o = {.seed = seed, .shuffle = shuffle, .timeout_s = timeout};
  KrDiags *d = kr_diags_new();
  const char *fail = NULL;
  if (kr_emu_run(s->mod, ls, n, &o, d) != KR_OK) {
    KrBuf m = {0};
    for (size_t i = 0; i < d->items.len; i++)
      kr_buf_printf(&m, "%s%s", i ? "; " : "", d->items.data[i].message);
    fail = kr_arena_printf(a, "the %s failed to run: %s", s->label, m.data ? m.data : "unknown error");
    kr_buf_free(&m);
  }
  kr_diags_free(d);
  return fail;
}

/* ---- Comparing ----------------------------------------------------------------------------------- */

static const char *check_inputs(const Buf *b, size_t n, const char *who, KrArena *a) {
  for (size_t i = 0; i < n; i++) {
    if (b[i].spec->role != KR_ROLE_INPUT) continue;
    if (memcmp(b[i].dev, b[i].snapshot, b[i].bytes) == 0) continue;
    size_t es = kr_dtype_size(b[i].spec->dtype), k = 0;
    while (k < b[i].count && memcmp((char *)b[i].dev + k * es, (char *)b[i].snapshot + k * es, es) == 0) k++;
    return kr_arena_printf(a, "the %s modified input buffer '%s' (element %zu); declare it inout "
                              "if that is intended", who, b[i].spec->name, k);
  }
  return NULL;
}

/* Compares one output buffer; returns a failure reason or NULL and fills `c`. */
static const char *compare(const Buf *b, double rtol, double atol, KrBufferCheck *c, KrArena *a) {
  KrDtype t = b->spec->dtype;
  bool ints = t == KR_DT_I32 || t == KR_DT_I64;
  double num = 0, den = 0;
  c->buffer = b->spec->name;
  for (size_t i = 0; i < b->count; i++) {
    double r = kr_elem_get(b->ref, t, i), o = kr_elem_get(b->dev, t, i);
    if (ints) {
      if (r != o && c->mismatches++ == 0)
        c->max_abs = fabs(o - r);
      continue;
    }
    if (isnan(r))
      return kr_arena_printf(a, "the reference left element %zu of '%s' unwritten or NaN; is the "
                                "count in the spec too large?", i, c->buffer);
    if (isnan(o))
      return kr_arena_printf(a, "element %zu of '%s' is NaN: not written by the candidate, or "
                                "computed as NaN (reference %.9g)", i, c->buffer, r);
    if (isinf(r) || isinf(o)) {
      if (r != o) return kr_arena_printf(a, "element %zu of '%s' is %g, reference %g", i, c->buffer, o, r);
      continue;
    }
    double d = fabs(o - r);
    num += d * d, den += r * r;
    if (d > c->max_abs) c->max_abs = d;
    if (r != 0 && d / fabs(r) > c->max_rel) c->max_rel = d / fabs(r);
  }
  if (ints) {
    if (c->mismatches)
      return kr_arena_printf(a, "%zu elements of '%s' differ from the reference", c->mismatches, c->buffer);
    return NULL;
  }
  c->rel_l2 = den > 0 ? sqrt(num) / sqrt(den) : (num > 0 ? INFINITY : 0);
  bool ok = c->rel_l2 <= rtol || (den == 0 && c->max_abs <= atol);
  if (!ok)
    return kr_arena_printf(a, "'%s': relative L2 error %.3g exceeds the tolerance %.3g (max abs "
                              "%.3g, max rel %.3g)", c->buffer, c->rel_l2, rtol, c->max_abs, c->max_rel);
  return NULL;
}

/* ---- One case ------------------------------------------------------------------------------------ */

typedef struct Run {
  const KrSpec *spec;
  const KrVerifyOptions *opt;
  Side *ref, *cand;
  double rtol;
  KrArena *a;
} Run;

static const char *sizes_text(const KrSpec *s, const int64_t *v, KrArena *a) {
  KrBuf b = {0};
  for (size_t i = 0; i < s->sizes.len; i++)
    kr_buf_printf(&b, "%s%s=%lld", i ? ", " : "", s->sizes.data[i].name, (long long)v[i]);
  const char *r = kr_arena_strdup(a, b.data ? b.data : "");
  kr_buf_free(&b);
  return r;
}

/* Runs the candidate once and compares; returns the failure or NULL. */
static const char *candidate_pass(Run *r, Env *e, Buf *b, uint32_t seed, bool shuffle, KrCaseResult *cr) {
  const KrSpec *s = r->spec;
  const char *why = bufs_prepare(s, e, b, seed, r->a);
  if (!why) why = run_side(r->cand, s, e, b, shuffle, seed, r->opt->timeout_s, r->a);
  if (!why) why = check_inputs(b, s->buffers.len, "candidate", r->a);
  cr->checks.len = 0;
  for (size_t i = 0; !why && i < s->buffers.len; i++) {
    if (b[i].spec->role != KR_ROLE_OUTPUT && b[i].spec->role != KR_ROLE_INOUT) continue;
    KrBufferCheck c = {0};
    why = compare(&b[i], r->rtol, s->atol, &c, r->a);
    kr_vec_push(r->a, &cr->checks, c);
  }
  return why;
}

static void run_case(Run *r, size_t ci, uint32_t seed, KrCaseResult *cr) {
  const KrSpec *s = r->spec;
  int64_t *sizes = kr_arena_alloc(r->a, (s->sizes.len + 1) * sizeof *sizes);
  kr_spec_case(s, ci, sizes);
  *cr = (KrCaseResult){.index = ci, .seed = seed, .sizes = sizes_text(s, sizes, r->a)};
  Env e = {.spec = s, .sizes = sizes};
  Buf *b = calloc(s->buffers.len, sizeof *b);
  const char *why = bufs_alloc(s, &e, b, r->a);
  if (!why) why = bufs_prepare(s, &e, b, seed, r->a);
  if (!why) why = run_side(r->ref, s, &e, b, false, seed, r->opt->timeout_s, r->a);
  if (!why) why = check_inputs(b, s->buffers.len, "reference", r->a);
  for (size_t i = 0; !why && i < s->buffers.len; i++) memcpy(b[i].ref, b[i].dev, b[i].bytes);
  if (!why) {
    why = candidate_pass(r, &e, b, seed, r->opt->shuffle, cr);
    KrCaseResult in_order = *cr; /* the rerun's checks must not replace the failing run's */
    memset(&in_order.checks, 0, sizeof in_order.checks);
    if (why && r->opt->shuffle && !candidate_pass(r, &e, b, seed, false, &in_order))
      why = kr_arena_printf(r->a, "race suspected: the candidate passes with threads in order but "
                                  "fails with a shuffled order (seed %u): %s", seed, why);
  }
  bufs_free(b, s->buffers.len);
  free(b);
  cr->pass = why == NULL;
  cr->failure = why;
}

/* ---- Preparing both sides ------------------------------------------------------------------------ */

static const char **kernel_names(const KrSpec *s, KrArena *a) {
  const char **names = kr_arena_alloc(a, (s->launches.len + 1) * sizeof *names);
  for (size_t i = 0; i < s->launches.len; i++) names[i] = s->launches.data[i].kernel;
  return names;
}

/* The candidate's text: a recipe's output (its lowering tolerances and launch changes noted) or
 * a file. */
static KrStatus candidate_text(Run *r, Side *ref, Side *cand, KrVerifyReport *rep, KrDiags *d) {
  const KrVerifyOptions *o = r->opt;
  KrArena *a = r->a;
  for (size_t i = 0; i < r->spec->launches.len; i++) {
    KrLaunchChange none = {0};
    kr_vec_push(a, &cand->changes, none);
    kr_vec_push(a, &ref->changes, none);
  }
  if (o->candidate) {
    char *t;
    if (kr_file_read(o->candidate, a, &t, &cand->len, d) != KR_OK) return KR_ERR;
    cand->text = t, cand->path = o->candidate, rep->candidate = o->candidate;
    return KR_OK;
  }
  KrRecipeOptions defaults;
  kr_recipe_options_init(&defaults, a);
  const KrRecipeOptions *ro = o->recipe_opts ? o->recipe_opts : &defaults;
  char *rt;
  size_t rl;
  KrRecipeRun *run = NULL;
  if (kr_file_read(o->recipe, a, &rt, &rl, d) != KR_OK ||
      kr_recipe_apply(o->recipe, rt, rl, ref->path, ref->text, ref->len, ro, &run, d) != KR_OK)
    return KR_ERR;
  cand->text = kr_arena_strndup(a, run->output_text, run->output_len);
  cand->len = run->output_len;
  cand->path = kr_arena_printf(a, "%s (after %s)", ref->path, o->recipe);
  rep->candidate = kr_arena_printf(a, "%s applied to %s", o->recipe, ref->path);
  for (size_t i = 0; i < run->records.len; i++) {
    const KrPassRecord *pr = &run->records.data[i];
    if (pr->precision == KR_PRECISION_LOWERS && pr->tolerance) {
      double t = strtod(pr->tolerance, NULL);
      if (t > r->rtol) r->rtol = t;
      rep->precision = kr_arena_printf(a, "lowered (%s: tolerance %s)", pr->pass, pr->tolerance);
    }
    for (size_t j = 0; j < r->spec->launches.len; j++) {
      KrLaunchChange *c = &cand->changes.data[j];
      const char *k = r->spec->launches.data[j].kernel;
      if (strncmp(k, pr->kernel, strlen(pr->kernel)) != 0) continue;
      if (pr->launch.grid) c->grid = kr_arena_strdup(a, pr->launch.grid);
      if (pr->launch.block) c->block = kr_arena_strdup(a, pr->launch.block);
      if (pr->launch.shmem) c->shmem = kr_arena_strdup(a, pr->launch.shmem);
    }
  }
  kr_recipe_run_free(run);
  return KR_OK;
}

static KrStatus build(Run *r, Side *s, KrDiags *d) {
  if (side_load(s, d) != KR_OK) return KR_ERR;
  return kr_emu_build(s->path, s->text, s->len, kernel_names(r->spec, r->a), r->spec->launches.len,
                      r->opt->cache_dir, &s->mod, d);
}

KrStatus kr_verify(const KrSpec *spec, const KrVerifyOptions *opt, KrArena *a,
                   KrVerifyReport **out, KrDiags *d) {
  KrVerifyReport *rep = kr_arena_alloc(a, sizeof *rep);
  *out = rep;
  rep->problem = spec->name;
  rep->reference = spec->source;
  rep->precision = "strict fp32";
  Side ref = {.label = "reference", .path = spec->source}, cand = {.label = "candidate"};
  Run r = {.spec = spec, .opt = opt, .ref = &ref, .cand = &cand, .rtol = spec->rtol, .a = a};
  char *t;
  KrStatus st = KR_ERR;
  if (kr_file_read(spec->source, a, &t, &ref.len, d) != KR_OK) goto done;
  ref.text = t;
  if (candidate_text(&r, &ref, &cand, rep, d) != KR_OK) goto done;
  if (build(&r, &ref, d) != KR_OK) {
    rep->error = "the reference does not build for the emulator";
    goto done;
  }
  if (build(&r, &cand, d) != KR_OK) {
    rep->error = "the candidate does not build for the emulator";
    goto done;
  }
  rep->tolerance = r.rtol;
  uint32_t seeds = opt->seeds ? opt->seeds : spec->seeds;
  for (size_t c = 0; c < kr_spec_ncases(spec); c++)
    for (uint32_t sd = 1; sd <= seeds; sd++) {
      KrCaseResult cr;
      run_case(&r, c, sd, &cr);
      kr_vec_push(a, &rep->cases, cr);
      if (cr.pass) rep->passed++;
      else rep->failed++;
    }
  st = rep->failed ? KR_ERR : KR_OK;
done:
  if (!rep->error && st != KR_OK && rep->cases.len == 0) rep->error = "verification could not start";
  side_free(&ref);
  side_free(&cand);
  return st;
}

/* ---- Reports ------------------------------------------------------------------------------------- */

void kr_verify_text(const KrVerifyReport *r, KrBuf *o) {
  kr_buf_printf(o, "verify %s: reference %s, candidate %s\n", r->problem, r->reference,
                r->candidate ? r->candidate : "?");
  if (r->error) {
    kr_buf_printf(o, "FAILED: %s\n", r->error);
    return;
  }
  kr_buf_printf(o, "precision: %s, relative L2 tolerance %.3g\n", r->precision, r->tolerance);
  for (size_t i = 0; i < r->cases.len; i++) {
    const KrCaseResult *c = &r->cases.data[i];
    kr_buf_printf(o, "  %s  %s seed %u", c->pass ? "pass" : "FAIL", c->sizes, c->seed);
    for (size_t j = 0; j < c->checks.len; j++) {
      const KrBufferCheck *k = &c->checks.data[j];
      kr_buf_printf(o, "  %s: rel_l2 %.2e max_abs %.2e", k->buffer, k->rel_l2, k->max_abs);
    }
    if (c->failure) kr_buf_printf(o, "\n        %s", c->failure);
    kr_buf_putc(o, '\n');
  }
  kr_buf_printf(o, "%zu passed, %zu failed\n", r->passed, r->failed);
}

static void jstr(KrBuf *o, const char *s) {
  if (s) kr_buf_json_string(o, s, strlen(s));
  else kr_buf_puts(o, "null");
}

static void jnum(KrBuf *o, double v) {
  if (isfinite(v)) kr_buf_printf(o, "%.6g", v);
  else kr_buf_puts(o, "null");
}

void kr_verify_json(const KrVerifyReport *r, KrBuf *o) {
  kr_buf_puts(o, "{\"problem\": "), jstr(o, r->problem);
  kr_buf_puts(o, ", \"reference\": "), jstr(o, r->reference);
  kr_buf_puts(o, ", \"candidate\": "), jstr(o, r->candidate);
  kr_buf_puts(o, ", \"precision\": "), jstr(o, r->precision);
  kr_buf_puts(o, ", \"tolerance\": "), jnum(o, r->tolerance);
  kr_buf_puts(o, ", \"error\": "), jstr(o, r->error);
  kr_buf_printf(o, ", \"passed\": %zu, \"failed\": %zu, \"cases\": [", r->passed, r->failed);
  for (size_t i = 0; i < r->cases.len; i++) {
    const KrCaseResult *c = &r->cases.data[i];
    kr_buf_printf(o, "%s\n  {\"case\": %zu, \"seed\": %u, \"sizes\": ", i ? "," : "", c->index, c->seed);
    jstr(o, c->sizes);
    kr_buf_printf(o, ", \"pass\": %s, \"failure\": ", c->pass ? "true" : "false");
    jstr(o, c->failure);
    kr_buf_puts(o, ", \"buffers\": [");
    for (size_t j = 0; j < c->checks.len; j++) {
      const KrBufferCheck *k = &c->checks.data[j];
      kr_buf_printf(o, "%s{\"name\": ", j ? ", " : "");
      jstr(o, k->buffer);
      kr_buf_puts(o, ", \"rel_l2\": "), jnum(o, k->rel_l2);
      kr_buf_puts(o, ", \"max_abs\": "), jnum(o, k->max_abs);
      kr_buf_puts(o, ", \"max_rel\": "), jnum(o, k->max_rel);
      kr_buf_printf(o, ", \"mismatches\": %zu}", k->mismatches);
    }
    kr_buf_puts(o, "]}");
  }
  kr_buf_puts(o, "]}\n");
}
