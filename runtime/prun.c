/* runtime/prun.c: running a problem's launches on one side (reference or candidate), on the CPU
 * emulator or the GPU: symbol values, launch dimensions (with passes' launch changes), buffers
 * (filled, poisoned, snapshotted), argument packing, the candidate's text (a recipe's output or a
 * file) and building it for the device. Shared by verification (verify.c) and timing (bench.c). */
#include "runtime/prun.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/loops.h"
#include "passes/pass.h"
#include "recipes/recipe.h"
#include "runtime/emu_internal.h"
#include "runtime/cuda.h"
#include "runtime/expr.h"
#include "runtime/fill.h"
#include "runtime/fill/kr_fill.h"

/* ---- One side (reference or candidate) ----------------------------------------------------------- */


const KrKernel *kr__kernel_of(const KrSide *s, const char *launch_name) {
  return kr_model_find_launch(s->model, launch_name);
}

KrStatus kr__side_load(KrSide *s, KrDiags *d) {
  s->model_arena = kr_arena_new();
  if (kr_source_from_text(&s->src, s->path, s->text, s->len, s->model_arena, d) != KR_OK) return KR_ERR;
  kr_source_use(&s->src, s->build);
  size_t before = d->nerrors;
  s->tree = kr_tree_parse(&s->src, d);
  if (!s->tree || d->nerrors > before) return KR_ERR;
  s->model = kr_model_new(s->tree, s->model_arena);
  return KR_OK;
}

void kr__side_free(KrSide *s) {
  for (size_t i = 0; s->ws && i < s->changes.len; i++)
    if (s->ws[i].host && !s->ws[i].pooled) kr_emu_free(s->ws[i].host);
  kr_emu_module_free(s->mod);
  kr_tree_free(s->tree);
  kr_arena_free(s->model_arena);
}

/* ---- Values of symbols and launch dimensions ----------------------------------------------------- */


static bool env_lookup(void *ctx, const char *name, int64_t *v) {
  KrEnv *e = ctx;
  for (size_t i = 0; i < e->spec->sizes.len; i++)
    if (strcmp(e->spec->sizes.data[i].name, name) == 0) return *v = e->sizes[i], true;
  static const char *const dims[] = {"grid.x", "grid.y", "grid.z", "block.x", "block.y", "block.z"};
  for (int i = 0; i < 6; i++)
    if (strcmp(name, dims[i]) == 0) return *v = i < 3 ? e->grid[i] : e->block[i - 3], true;
  if (strcmp(name, "shmem") == 0) return *v = e->shmem, true;
  if (strcmp(name, "sms") == 0) return *v = e->sms > 0 ? e->sms : KR_EMU_SMS, true;
  if (strncmp(name, "param.", 6) == 0 && e->launch && e->kernel) {
    for (size_t i = 0; i < e->kernel->params.len && i < e->launch->args.len; i++) {
      if (strcmp(e->kernel->params.data[i].name, name + 6) != 0) continue;
      const KrArgSpec *arg = &e->launch->args.data[i];
      if (arg->kind == KR_ARG_BUFFER) return false;
      if (arg->kind != KR_ARG_EXPR) return *v = (int64_t)arg->number, true;
      const KrLaunchSpec *l = e->launch;
      e->launch = NULL;   /* the argument's own expression is over the sizes only */
      KrArena *a = kr_arena_new();
      const char *why;
      bool ok = kr__eval(e, arg->text, v, a, &why) == KR_OK;
      kr_arena_free(a);
      e->launch = l;
      return ok;
    }
  }
  return false;
}

KrStatus kr__eval(KrEnv *e, const char *text, int64_t *v, KrArena *a, const char **why) {
  return kr_expr_eval(text, env_lookup, e, v, a, why);
}

/* Applies a pass's launch change (pass.h: one expression for x, or `dim3(x, y, z)`) to `dims`.
 * All parts are evaluated against the old values before any is replaced. */
static const char *change_dims(KrEnv *e, const char *text, int64_t dims[3], KrArena *a) {
  const char *why;
  int64_t v[3] = {dims[0], dims[1], dims[2]};
  if (strncmp(text, "dim3(", 5) != 0) {
    if (kr__eval(e, text, &v[0], a, &why)) return why;
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
      if (kr__eval(e, kr_arena_strndup(a, p, (size_t)(q - p)), &v[i], a, &why)) return why;
      if (*q != ',') break;
      p = q + 1;
    }
  }
  memcpy(dims, v, sizeof v);
  return NULL;
}

/* Launch dimensions for spec launch `l`, with the side's pass-reported changes applied, and the
 * values of the change's trailing arguments (over the old dimensions) in `args`. */
static const char *launch_dims(KrEnv *e, const KrLaunchSpec *l, const KrLaunchChange *c, KrArena *a,
                               KrDim3 *grid, KrDim3 *block, size_t *shmem, int64_t *args) {
  const char *why;
  for (int i = 0; i < 3; i++) {
    if (kr__eval(e, l->grid[i], &e->grid[i], a, &why) || kr__eval(e, l->block[i], &e->block[i], a, &why))
      return why;
  }
  if (kr__eval(e, l->shmem, &e->shmem, a, &why)) return why;
  size_t nargs = c ? kr_launch_args_count(c->args) : 0;
  for (size_t i = 0; i < nargs; i++) {
    const char *x = kr_launch_arg(c->args, i, a);
    if (kr__eval(e, x, &args[i], a, &why)) return kr_arena_printf(a, "pass launch change argument '%s': %s", x, why);
    if (args[i] < INT32_MIN || args[i] > INT32_MAX)
      return kr_arena_printf(a, "pass launch change argument '%s' is %lld, past an int", x, (long long)args[i]);
  }
  if (c && c->grid && (why = change_dims(e, c->grid, e->grid, a)))
    return kr_arena_printf(a, "pass launch change grid '%s': %s", c->grid, why);
  if (c && c->block && (why = change_dims(e, c->block, e->block, a)))
    return kr_arena_printf(a, "pass launch change block '%s': %s", c->block, why);
  if (c && c->shmem && kr__eval(e, c->shmem, &e->shmem, a, &why))
    return kr_arena_printf(a, "pass launch change shmem '%s': %s", c->shmem, why);
  *grid = (KrDim3){(uint32_t)e->grid[0], (uint32_t)e->grid[1], (uint32_t)e->grid[2]};
  *block = (KrDim3){(uint32_t)e->block[0], (uint32_t)e->block[1], (uint32_t)e->block[2]};
  *shmem = (size_t)e->shmem;
  return NULL;
}

/* ---- Buffers ------------------------------------------------------------------------------------- */


const char *kr__bufs_bytes(const KrSpec *s, KrEnv *e, uint64_t *total, uint64_t *each, KrArena *a) {
  *total = 0;
  for (size_t i = 0; i < s->buffers.len; i++) {
    int64_t n;
    const char *why;
    if (kr__eval(e, s->buffers.data[i].count, &n, a, &why)) return why;
    if (n < 0) return kr_arena_printf(a, "buffer '%s' has %lld elements", s->buffers.data[i].name, (long long)n);
    uint64_t es = kr_dtype_size(s->buffers.data[i].dtype);
    uint64_t bytes = (uint64_t)n <= UINT64_MAX / 8 / es ? (uint64_t)n * es : UINT64_MAX / 8;
    if (each) each[i] = bytes;
    *total += bytes;
  }
  return NULL;
}

const char *kr__bufs_alloc_shifted(const KrSpec *s, KrEnv *e, KrPBuf *b, KrCudaServer *pool, size_t shifted,
                                   KrArena *a) {
  for (size_t i = 0; i < s->buffers.len; i++) {
    int64_t n;
    const char *why;
    if (kr__eval(e, s->buffers.data[i].count, &n, a, &why)) return why;
    if (n < 0) return kr_arena_printf(a, "buffer '%s' has %lld elements", s->buffers.data[i].name, (long long)n);
    b[i].spec = &s->buffers.data[i];
    size_t es = kr_dtype_size(b[i].spec->dtype);
    b[i].count = (size_t)n;
    b[i].bytes = (size_t)n * es;
    b[i].pooled = pool != NULL;
    b[i].head = i == shifted ? 1 : 0;
    /* The emulator's messages count elements from the start of the allocation: say so. */
    const char *label = b[i].head ? kr_arena_printf(a, "%s (counted from the element before it)", b[i].spec->name)
                                  : b[i].spec->name;
    char *base = pool ? kr_cuda_server_alloc(pool, b[i].bytes + b[i].head * es)
                      : kr_emu_alloc_elems(b[i].count + b[i].head, es, label);
    b[i].dev = base ? base + b[i].head * es : NULL;
    if (base && b[i].head) kr_fill_poison(base, b[i].spec->dtype, b[i].head);
    b[i].snapshot = malloc(b[i].bytes ? b[i].bytes : 1);
    b[i].ref = kr__buf_ref_pooled(&b[i]) ? kr_cuda_server_alloc(pool, b[i].bytes)
                                         : malloc(b[i].bytes ? b[i].bytes : 1);
    if (!b[i].dev || !b[i].snapshot || !b[i].ref) return "out of memory for buffers";
  }
  return NULL;
}

const char *kr__bufs_alloc_in(const KrSpec *s, KrEnv *e, KrPBuf *b, KrCudaServer *pool, KrArena *a) {
  return kr__bufs_alloc_shifted(s, e, b, pool, SIZE_MAX, a);
}

bool kr__buf_ref_pooled(const KrPBuf *b) {
  return b->pooled && (b->spec->role == KR_ROLE_OUTPUT || b->spec->role == KR_ROLE_INOUT);
}

const char *kr__bufs_alloc(const KrSpec *s, KrEnv *e, KrPBuf *b, KrArena *a) {
  return kr__bufs_alloc_in(s, e, b, NULL, a);
}

void kr__bufs_free(KrPBuf *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (b[i].dev && !b[i].pooled) kr_emu_free((char *)b[i].dev - b[i].head * kr_dtype_size(b[i].spec->dtype));
    free(b[i].snapshot);
    if (!kr__buf_ref_pooled(&b[i])) free(b[i].ref);
  }
}

const KrPBuf *kr__buf_named(const KrPBuf *b, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(b[i].spec->name, name) == 0) return &b[i];
  return NULL;
}

/* Fills the buffers as kr__bufs_prepare says; with `generated` false only those the generator
 * cannot make (the CSR structures), leaving the rest to the GPU. */
static const char *prepare(const KrSpec *s, KrEnv *e, KrPBuf *b, uint32_t seed, bool generated,
                           KrArena *a) {
  for (size_t i = 0; i < s->buffers.len; i++) {
    const KrBufferSpec *bs = b[i].spec;
    bool gen = bs->role == KR_ROLE_OUTPUT || kr_fill_generated(bs->fill.kind);
    if (gen && !generated) continue;
    if (bs->role == KR_ROLE_OUTPUT) {
      kr_fill_poison(b[i].dev, bs->dtype, b[i].count);
      continue;
    }
    int64_t cols = 0, nnz = 0;
    const char *why;
    if (bs->fill.cols && kr__eval(e, bs->fill.cols, &cols, a, &why)) return why;
    if (bs->fill.nnz && kr__eval(e, bs->fill.nnz, &nnz, a, &why)) return why;
    const KrPBuf *rp = bs->fill.rowptr ? kr__buf_named(b, s->buffers.len, bs->fill.rowptr) : NULL;
    const char *err = kr_fill_buffer(bs, b[i].dev, b[i].count, seed, i, rp ? rp->dev : NULL,
                                     rp ? rp->spec->dtype : KR_DT_I32, rp ? rp->count - 1 : 0, cols, nnz);
    if (err) return kr_arena_printf(a, "buffer '%s': %s", bs->name, err);
    memcpy(b[i].snapshot, b[i].dev, b[i].bytes);
  }
  return NULL;
}

/* Fills inputs (from the seed), zeroes temps, poisons outputs; keeps a snapshot of the inputs. */
const char *kr__bufs_prepare(const KrSpec *s, KrEnv *e, KrPBuf *b, uint32_t seed, KrArena *a) {
  return prepare(s, e, b, seed, true, a);
}

const char *kr__bufs_prepare_host_part(const KrSpec *s, KrEnv *e, KrPBuf *b, uint32_t seed, KrArena *a) {
  return prepare(s, e, b, seed, false, a);
}

static uint32_t poison_pattern(KrDtype t, int *size) {
  switch (t) {
  case KR_DT_F32: return *size = 4, KR_GEN_POISON_F32;
  case KR_DT_F16: return *size = 2, KR_GEN_POISON_F16;
  case KR_DT_BF16: return *size = 2, KR_GEN_POISON_BF16;
  default: return *size = 1, KR_GEN_POISON_BYTE;
  }
}

size_t kr__bufs_device_ops(const KrPBuf *b, size_t nb, uint32_t seed, KrCudaData *ops) {
  for (size_t i = 0; i < nb; i++) {
    const KrBufferSpec *bs = b[i].spec;
    KrCudaData *o = &ops[i];
    *o = (KrCudaData){.name = bs->name, .host = b[i].dev, .bytes = b[i].bytes, .first_diff = UINT64_MAX};
    if (bs->role == KR_ROLE_OUTPUT) {
      o->kind = KR_CUDA_DATA_SET;
      o->pattern = poison_pattern(bs->dtype, &o->pattern_size);
    } else if (bs->fill.kind == KR_FILL_ZERO) {
      o->kind = KR_CUDA_DATA_SET, o->pattern = 0, o->pattern_size = 1;
    } else if (kr_fill_generated(bs->fill.kind)) {
      *o = kr__buf_fill_op(&b[i], seed, i, KR_CUDA_DATA_FILL);
    } else {
      o->kind = KR_CUDA_DATA_UPLOAD;
    }
  }
  return nb;
}

KrCudaData kr__buf_fill_op(const KrPBuf *b, uint32_t seed, size_t stream, KrCudaDataKind kind) {
  const KrBufferSpec *bs = b->spec;
  return (KrCudaData){.kind = kind, .name = bs->name, .host = b->dev, .bytes = b->bytes,
                      .key = kr_gen_key(seed, stream), .count = b->count, .a = bs->fill.a,
                      .b = bs->fill.b, .gen = kr_fill_gen_kind(bs->fill.kind), .dtype = (int)bs->dtype,
                      .first_diff = UINT64_MAX};
}

/* ---- The case's launches ------------------------------------------------------------------------- */

/* The launches at the case's sizes (kr_spec_launches: a launches function's list, or the spec's
 * own), or the reason they cannot be had, with the spec's path and line. */
static const char *case_launches(const KrSpec *spec, const KrEnv *e, KrArena *a, const KrLaunchList **out) {
  KrDiags *d = kr_diags_new();
  const char *why = NULL;
  if (kr_spec_launches(spec, e->sizes, a, out, d) != KR_OK) {
    KrBuf m = {0};
    for (size_t i = 0; i < d->items.len; i++) {
      const KrDiag *g = &d->items.data[i];
      if (g->severity != KR_DIAG_ERROR) continue;
      if (m.len) kr_buf_puts(&m, "; ");
      if (g->path && g->line) kr_buf_printf(&m, "%s:%u: ", g->path, g->line);
      else if (g->path) kr_buf_printf(&m, "%s: ", g->path);
      kr_buf_puts(&m, g->message);
    }
    why = kr_arena_strdup(a, m.data ? m.data : "the launches function failed");
    kr_buf_free(&m);
  }
  kr_diags_free(d);
  return why;
}

/* Which of the spec's launches (the benchmark sizes' list) launch j of `list` takes its launch
 * change and workspace from: itself, in that list; in a launches function's list at other sizes,
 * the first launch of the same kernel there (a pass's change goes by the kernel's name, so every
 * launch of one kernel has the same). SIZE_MAX when none (kr_spec_launches refuses such a list). */
static size_t change_index(const KrSpec *spec, const KrLaunchList *list, size_t j, KrArena *a) {
  if (list == &spec->launches) return j;
  const char *k = kr__emu_norm_name(a, list->data[j].kernel);
  for (size_t i = 0; i < spec->launches.len; i++)
    if (strcmp(kr__emu_norm_name(a, spec->launches.data[i].kernel), k) == 0) return i;
  return SIZE_MAX;
}

/* ---- Workspaces ---------------------------------------------------------------------------------- */

/* The bytes of the workspace launch l asks for through change c (0: none); at least 4 when it asks
 * for one, so that a size where the expression is 0 still gets a pointer tied to a buffer. */
static const char *ws_bytes(const KrSide *s, const KrLaunchChange *c, const KrLaunchSpec *l, KrEnv *e,
                            uint64_t *bytes, KrArena *a) {
  *bytes = 0;
  const char *text = c ? c->workspace : NULL;
  if (!text) return NULL;
  const KrKernel *k = kr__kernel_of(s, l->kernel);
  if (!k) return kr_arena_printf(a, "the %s has no kernel '%s'", s->label, l->kernel);
  int64_t v;
  const char *why;
  e->launch = l, e->kernel = k;
  KrStatus st = kr__eval(e, text, &v, a, &why);
  e->launch = NULL, e->kernel = NULL;
  if (st != KR_OK) return kr_arena_printf(a, "pass launch change workspace '%s': %s", text, why);
  if (v < 0) return kr_arena_printf(a, "pass launch change workspace '%s' is %lld bytes", text, (long long)v);
  *bytes = v ? (uint64_t)v : 4;
  return NULL;
}

/* Per spec launch i, the bytes of its workspace at the case's sizes (0: none): the most that the
 * case's launches taking its change ask for. For a spec's own list that is launch i's; a launches
 * function's launches of one kernel share one, as consecutive launches of a program may. */
static const char *case_ws_bytes(const KrSide *s, const KrSpec *spec, KrEnv *e, uint64_t *bytes, KrArena *a) {
  memset(bytes, 0, spec->launches.len * sizeof *bytes);
  const KrLaunchList *list;
  const char *why = case_launches(spec, e, a, &list);
  for (size_t j = 0; !why && j < list->len; j++) {
    size_t i = change_index(spec, list, j, a);
    uint64_t b;
    if (i >= s->changes.len || (why = ws_bytes(s, &s->changes.data[i], &list->data[j], e, &b, a))) continue;
    if (b > bytes[i]) bytes[i] = b;
  }
  return why;
}

uint64_t kr__workspaces_bytes(const KrSide *s, const KrSpec *spec, KrEnv *e, KrArena *a) {
  uint64_t total = 0, *bytes = kr_arena_alloc(a, (spec->launches.len + 1) * sizeof *bytes);
  case_ws_bytes(s, spec, e, bytes, a);
  for (size_t i = 0; i < spec->launches.len; i++)
    if (bytes[i]) total += (bytes[i] + 255) / 256 * 256;
  return total;
}

const char *kr__workspaces_ready(const KrSide *s, const KrSpec *spec, KrEnv *e, KrCudaServer *pool, KrArena *a) {
  if (!s->ws) return NULL;
  uint64_t *need = kr_arena_alloc(a, (spec->launches.len + 1) * sizeof *need);
  const char *why = case_ws_bytes(s, spec, e, need, a);
  if (why) return why;
  for (size_t i = 0; i < spec->launches.len; i++) {
    KrWorkspace *w = &s->ws[i];
    uint64_t bytes = need[i];
    if (!bytes) {   /* none at these sizes: let it go, so that it is not passed as a buffer */
      if (w->host && !w->pooled) kr_emu_free(w->host);
      *w = (KrWorkspace){0};
      continue;
    }
    bool reuse = w->host && !w->pooled && !pool && w->bytes == bytes;
    if (!reuse) {
      if (w->host && !w->pooled) kr_emu_free(w->host);
      /* Counted in 4-byte elements: the arrival counters, and floats' partial results. */
      w->host = pool ? kr_cuda_server_alloc(pool, (size_t)bytes) : kr_emu_alloc_elems((size_t)(bytes + 3) / 4, 4, "workspace");
      w->bytes = (size_t)bytes, w->pooled = pool != NULL;
      if (!w->host) return kr_arena_printf(a, "out of memory for the %s's workspace of %llu bytes", s->label,
                                           (unsigned long long)bytes);
    }
    memset(w->host, 0, w->bytes);
  }
  return NULL;
}

size_t kr__workspace_buffers(const KrSide *s, const KrSpec *spec, KrCudaBuffer *cb) {
  size_t n = 0;
  for (size_t i = 0; s->ws && i < spec->launches.len; i++)
    if (s->ws[i].host) cb[n++] = (KrCudaBuffer){"workspace", s->ws[i].host, s->ws[i].bytes};
  return n;
}

/* The workspace of spec launch i as kr__workspace_buffers numbers it: how many come before. */
static size_t ws_rank(const KrSide *s, size_t i) {
  size_t r = 0;
  for (size_t k = 0; k < i; k++) r += s->ws[k].host != NULL;
  return r;
}

/* ---- Packing launches ---------------------------------------------------------------------------- */

/* A buffer argument: the buffer's memory, `offset` elements in. */
static const char *pack_buffer(const KrArgSpec *arg, size_t j, KrEnv *e, const KrPBuf *b, size_t nb,
                               KrSlot *slot, int *buffer, KrArena *a) {
  const KrPBuf *pb = kr__buf_named(b, nb, arg->text);
  if (!pb) return kr_arena_printf(a, "argument %zu: no buffer '%s'", j + 1, arg->text);
  int64_t off = 0;
  const char *why;
  if (arg->offset && kr__eval(e, arg->offset, &off, a, &why))
    return kr_arena_printf(a, "argument %zu '%s': offset '%s': %s", j + 1, arg->text, arg->offset, why);
  if (off < 0 || (uint64_t)off > pb->count)
    return kr_arena_printf(a, "argument %zu '%s': offset '%s' is %lld, outside the buffer's %zu elements", j + 1,
                           arg->text, arg->offset, (long long)off, pb->count);
  slot->p = (char *)pb->dev + (size_t)off * kr_dtype_size(pb->spec->dtype);
  *buffer = (int)(pb - b);
  return NULL;
}

/* Argument j of launch l as the bytes of kernel k's parameter j: a buffer's pointer, or a value
 * converted to the parameter's type (a float parameter takes an integer or a double expression,
 * an integer parameter an integer one). */
static const char *pack_arg(const KrLaunchSpec *l, size_t j, const KrKernel *k, KrEnv *e,
                            const KrPBuf *b, size_t nb, KrSlot *slot, int *buffer, KrArena *a) {
  const KrArgSpec *arg = &l->args.data[j];
  const KrParam *p = &k->params.data[j];
  *buffer = -1;
  if ((arg->kind == KR_ARG_BUFFER) != (p->pointer_depth > 0))
    return kr_arena_printf(a, "launch of '%s': argument %zu '%s' %s, but parameter '%s' is '%s'", l->kernel, j + 1,
                           arg->text, arg->kind == KR_ARG_BUFFER ? "is a buffer" : "is not a buffer", p->name, p->type);
  if (arg->kind == KR_ARG_BUFFER) return pack_buffer(arg, j, e, b, nb, slot, buffer, a);
  KrScalarKind t = kr__param_scalar(k, j, l->kernel, a);
  KrExprValue v = {.is_float = true, .f = arg->number};
  if (arg->kind == KR_ARG_EXPR) {
    const char *why;
    if (kr_expr_eval_value(arg->text, env_lookup, e, &v, a, &why))
      return kr_arena_printf(a, "launch of '%s': argument %zu '%s': %s", l->kernel, j + 1, arg->text, why);
    if (v.is_float && !kr__scalar_is_float(t))
      return kr_arena_printf(a, "launch of '%s': argument %zu '%s' is a floating-point expression, but parameter "
                             "'%s' is '%s'", l->kernel, j + 1, arg->text, p->name, p->type);
  }
  double d = v.is_float ? v.f : (double)v.i;
  int64_t i = v.is_float ? (int64_t)v.f : v.i;
  switch (t) {
  case KR_SCALAR_F32: slot->f = (float)d; break;
  case KR_SCALAR_F64: slot->d = d; break;
  case KR_SCALAR_F16: slot->u16 = kr_f32_to_f16((float)d); break;
  case KR_SCALAR_BF16: slot->u16 = kr_f32_to_bf16((float)d); break;
  case KR_SCALAR_I8: slot->i8 = (int8_t)i; break;
  case KR_SCALAR_I16: slot->i16 = (int16_t)i; break;
  case KR_SCALAR_I32: slot->i32 = (int32_t)i; break;
  case KR_SCALAR_I64: slot->i64 = i; break;
  }
  return NULL;
}

/* The launch after j of the kernel that lends launch j its borrowed arguments (KrLaunchChange.borrows). */
static const KrLaunchSpec *lender_launch(const KrLaunchList *list, size_t j, const char *lender, KrArena *a) {
  for (size_t i = j + 1; i < list->len; i++)
    if (kr__launch_is_kernel(list->data[i].kernel, lender, a)) return &list->data[i];
  return NULL;
}

/* The launch of KR_FILL_KERNEL that fills the buffer behind kernel k's parameter `name` (packed in slots
 * and bufidx) with all-ones bytes, from the pointer to the buffer's end (KrLaunchChange.fills). */
static const char *pack_fill(const KrKernel *k, const char *name, const KrSlot *slots, const int *bufidx,
                             const KrPBuf *b, KrCudaLaunch *out, KrArena *a) {
  size_t i = 0;
  while (i < k->params.len && strcmp(k->params.data[i].name, name) != 0) i++;
  if (i == k->params.len || bufidx[i] < 0)
    return kr_arena_printf(a, "kernel '%s' asks for its parameter '%s' filled, which is not one of its buffers", k->name, name);
  const KrPBuf *pb = &b[bufidx[i]];
  size_t size = kr_dtype_size(pb->spec->dtype);
  int64_t count = (int64_t)(((const char *)pb->dev + pb->count * size - (const char *)slots[i].p) / size);
  KrSlot *fs = kr_arena_alloc(a, 3 * sizeof *fs);
  void **args = kr_arena_alloc(a, 3 * sizeof *args);
  int *fb = kr_arena_alloc(a, 3 * sizeof *fb);
  fs[0].p = slots[i].p, fs[1].i64 = count, fs[2].i32 = (int32_t)size;
  args[0] = &fs[0], args[1] = &fs[1], args[2] = &fs[2];
  fb[0] = bufidx[i], fb[1] = fb[2] = -1;
  int64_t blocks = (count + 1023) / 1024;   /* 4 elements a thread; the kernel strides over the rest */
  *out = (KrCudaLaunch){.kernel = KR_FILL_KERNEL, .grid = {(unsigned)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks), 1, 1},
                        .block = {256, 1, 1}, .args = args, .arg_buffer = fb, .nargs = 3};
  return NULL;
}

/* Launch j of the case's list, packed into ls[*kept] unless its side drops it or its grid is empty;
 * before it, a launch of KR_FILL_KERNEL for each buffer its change fills. */
static const char *pack_launch(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *b,
                               const KrLaunchList *list, size_t j, KrCudaLaunch *ls, size_t *kept, KrArena *a) {
  const KrLaunchSpec *l = &list->data[j];
  size_t ci = change_index(spec, list, j, a);
  if (ci >= s->changes.len)
    return kr_arena_printf(a, "launch %zu runs '%s', which no launch of the spec at the benchmark sizes runs", j + 1,
                           l->kernel);
  const KrLaunchChange *c = &s->changes.data[ci];
  if (c->drops) return NULL;   /* its work is done by the kernel that fused it */
  const KrKernel *k = kr__kernel_of(s, l->kernel);
  if (!k) return kr_arena_printf(a, "the %s has no kernel '%s'", s->label, l->kernel);
  bool ws = c->workspace != NULL;
  size_t nx = kr_launch_args_count(c->args), n0 = l->args.len, nb = kr_launch_args_count(c->borrows);
  if (k->params.len != n0 + nb + nx + ws)
    return kr_arena_printf(a, "the %s's kernel '%s' takes %zu parameters, the spec passes %zu%s%s%s",
                           s->label, k->name, k->params.len, n0,
                           nb ? kr_arena_printf(a, ", the launch of '%s' after it %zu", c->lender, nb) : "",
                           nx ? kr_arena_printf(a, " and a pass's %zu trailing int%s", nx, nx == 1 ? "" : "s") : "",
                           ws ? " and a pass's workspace" : "");
  const KrLaunchSpec *ll = nb ? lender_launch(list, j, c->lender, a) : NULL;
  const KrKernel *lk = ll ? kr__kernel_of(s, ll->kernel) : NULL;
  if (nb && !lk)
    return kr_arena_printf(a, "launch %zu of '%s' takes arguments of the launch of '%s' after it, and none follows", j + 1,
                           l->kernel, c->lender);
  KrCudaLaunch main = {0};
  int64_t *extra = kr_arena_alloc(a, (nx + 1) * sizeof *extra);
  e->launch = l, e->kernel = k;
  e->sms = s->device == KR_DEVICE_CUDA ? kr_cuda_sms() : KR_EMU_SMS;
  const char *why = launch_dims(e, l, c, a, &main.grid, &main.block, &main.shmem, extra);
  e->launch = NULL, e->kernel = NULL;
  if (why) return why;
  /* CUDA refuses a grid with no blocks, so programs guard such a launch; so does the run. */
  if (!main.grid.x || !main.grid.y || !main.grid.z) return NULL;
  size_t n = n0 + nb + nx + ws;
  KrSlot *slots = kr_arena_alloc(a, (n + 2) * sizeof *slots);
  void **args = kr_arena_alloc(a, (n + 2) * sizeof *args);
  int *bufidx = kr_arena_alloc(a, (n + 2) * sizeof *bufidx);
  for (size_t i = 0; i < n0; i++) {
    if ((why = pack_arg(l, i, k, e, b, spec->buffers.len, &slots[i], &bufidx[i], a))) return why;
    args[i] = &slots[i];
  }
  for (size_t i = n0; i < n0 + nb; i++) {   /* the lender's arguments of the parameters of the same names */
    const char *name = kr_launch_arg(c->borrows, i - n0, a);
    size_t at = 0;
    while (at < lk->params.len && strcmp(lk->params.data[at].name, name) != 0) at++;
    if (at == lk->params.len || at >= ll->args.len)
      return kr_arena_printf(a, "kernel '%s' borrows '%s' of '%s', which has no such parameter", k->name, name, lk->name);
    e->launch = ll, e->kernel = lk;
    why = pack_arg(ll, at, lk, e, b, spec->buffers.len, &slots[i], &bufidx[i], a);
    e->launch = NULL, e->kernel = NULL;
    if (why) return why;
    args[i] = &slots[i];
  }
  for (size_t i = n0 + nb; i < n0 + nb + nx; i++) {   /* the pass's trailing ints: values of the original launch */
    slots[i].i32 = (int32_t)extra[i - n0 - nb];
    bufidx[i] = -1;
    args[i] = &slots[i];
  }
  if (ws) {   /* the trailing workspace, numbered after the spec's buffers */
    size_t i = n - 1;
    slots[i].p = s->ws ? s->ws[ci].host : NULL;
    bufidx[i] = (int)(spec->buffers.len + (s->ws ? ws_rank(s, ci) : 0));
    args[i] = &slots[i];
  }
  for (size_t f = 0; f < kr_launch_args_count(c->fills); f++)
    if ((why = pack_fill(k, kr_launch_arg(c->fills, f, a), slots, bufidx, b, &ls[(*kept)++], a))) return why;
  /* The name the module was built with: the benchmark sizes' list's spelling of the kernel. */
  main.kernel = spec->launches.data[ci].kernel;
  main.args = args;
  main.arg_buffer = bufidx;
  main.nargs = n;
  ls[(*kept)++] = main;
  return NULL;
}

/* A spec's entry call as one launch (cuda.h, kr_cuda_is_library): `kernel` names the entry, the
 * arguments are packed as a launch's against the original's entry function. */
static const char *pack_entry(const KrSpec *spec, KrEnv *e, const KrPBuf *b, KrArena *a, KrCudaLaunch **out,
                              size_t *count) {
  const KrEntrySpec *en = spec->entry;
  size_t n = en->call.args.len;
  KrSlot *slots = kr_arena_alloc(a, (n + 1) * sizeof *slots);
  void **args = kr_arena_alloc(a, (n + 1) * sizeof *args);
  int *tie = kr_arena_alloc(a, (n + 1) * sizeof *tie);
  memset(slots, 0, (n + 1) * sizeof *slots);
  for (size_t j = 0; j < n; j++) {
    const char *why = pack_arg(&en->call, j, en->fn, e, b, spec->buffers.len, &slots[j], &tie[j], a);
    if (why) return kr_arena_printf(a, "entry '%s': %s", en->name, why);
    args[j] = &slots[j];
  }
  KrCudaLaunch *l = kr_arena_alloc(a, sizeof *l);
  *l = (KrCudaLaunch){en->name, {1, 1, 1}, {1, 1, 1}, 0, args, tie, n};
  *out = l;
  *count = 1;
  return NULL;
}

const char *kr__pack(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *b, KrArena *a,
                     KrCudaLaunch **out, size_t *count) {
  if (spec->entry) return pack_entry(spec, e, b, a, out, count);
  const KrLaunchList *list;
  const char *why = case_launches(spec, e, a, &list);
  if (why) return why;
  size_t cap = list->len + 1;   /* and a fill before a launch for each buffer its change fills */
  for (size_t j = 0; j < list->len; j++) {
    size_t ci = change_index(spec, list, j, a);
    if (ci < s->changes.len) cap += kr_launch_args_count(s->changes.data[ci].fills);
  }
  KrCudaLaunch *ls = kr_arena_alloc(a, cap * sizeof *ls);
  size_t kept = 0;
  for (size_t j = 0; j < list->len; j++)
    if ((why = pack_launch(s, spec, e, b, list, j, ls, &kept, a))) return why;
  *out = ls;
  *count = kept;
  return NULL;
}

/* ---- Running one side ---------------------------------------------------------------------------- */

static uint64_t grid_threads(KrDim3 d) { return (uint64_t)d.x * d.y * d.z; }

static const char *joined(const KrDiags *d, const char *label, KrArena *a) {
  KrBuf m = {0};
  for (size_t i = 0; i < d->items.len; i++)
    kr_buf_printf(&m, "%s%s", i ? "; " : "", d->items.data[i].message);
  const char *r = kr_arena_printf(a, "the %s failed to run: %s", label, m.data ? m.data : "unknown error");
  kr_buf_free(&m);
  return r;
}

/* The spec's buffers, then the side's workspaces; *nb gets how many. */
static KrCudaBuffer *cuda_buffers(const KrSide *s, const KrSpec *spec, const KrPBuf *b, size_t *nb, KrArena *a) {
  KrCudaBuffer *cb = kr_arena_alloc(a, (spec->buffers.len + spec->launches.len + 1) * sizeof *cb);
  for (size_t i = 0; i < spec->buffers.len; i++) cb[i] = (KrCudaBuffer){b[i].spec->name, b[i].dev, b[i].bytes};
  *nb = spec->buffers.len + kr__workspace_buffers(s, spec, cb + spec->buffers.len);
  return cb;
}

/* On a server whose buffers stay on the device, the workspaces zeroed on the host are not copied:
 * they are zeroed on the device instead, so each run finds them as a fresh allocation would be. */
static const char *zero_resident_workspaces(const KrSide *s, const KrSpec *spec, const KrRunHow *how, KrArena *a) {
  KrCudaBuffer *cb = kr_arena_alloc(a, (spec->launches.len + 1) * sizeof *cb);
  size_t n = kr__workspace_buffers(s, spec, cb);
  if (!n) return NULL;
  KrCudaData *ops = kr_arena_alloc(a, (n + 1) * sizeof *ops);
  for (size_t i = 0; i < n; i++)
    ops[i] = (KrCudaData){.kind = KR_CUDA_DATA_SET, .name = cb[i].name, .host = cb[i].host, .bytes = cb[i].bytes,
                          .pattern = 0, .pattern_size = 1, .first_diff = UINT64_MAX};
  KrDiags *d = kr_diags_new();
  const char *why = kr_cuda_server_data(how->server, how->fill_module, ops, n, d) == KR_OK ? NULL
                    : joined(d, s->label, a);
  kr_diags_free(d);
  return why;
}

static const char *run_gpu(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *const *sets,
                           size_t nsets, const KrRunHow *how, KrArena *a) {
  size_t n, nb;
  const char *ready = kr__workspaces_ready(s, spec, e, how->server, a);
  if (ready) return ready;
  if (how->server && how->resident && (ready = zero_resident_workspaces(s, spec, how, a))) return ready;
  for (size_t r = 0; r < nsets; r++) {
    KrCudaLaunch *ls;
    const char *why = kr__pack(s, spec, e, sets[r], a, &ls, &n);
    if (why) return why;
    KrDiags *d = kr_diags_new();
    KrCudaBuffer *cb = cuda_buffers(s, spec, sets[r], &nb, a);
    KrStatus st = how->server
      ? (how->resident ? kr_cuda_server_run_resident : kr_cuda_server_run)(how->server, how->module, ls, n,
                                                                         cb, nb, how->hung, d)
      : kr_cuda_run(s->cubin.data, s->cubin.size, ls, n, cb, nb, how->timeout, d);
    const char *fail = NULL;
    if (st != KR_OK) {
      fail = joined(d, s->label, a);
      if (r > 0) fail = kr_arena_printf(a, "%s (run %zu of %zu in the same process)", fail, r + 1, nsets);
    }
    kr_diags_free(d);
    if (fail) return fail;
  }
  return NULL;
}

/* For a launch that ran past its time on the emulator: the launched kernels' loops whose bounds are
 * compile-time constants (a #define, a constexpr, a literal), whose work does not shrink with the
 * test sizes, and what to do about it. NULL when there are none. */
static const char *fixed_work_hint(const KrSide *s, const KrSpec *spec, uint32_t *at, KrArena *a) {
  if (!s->model || !s->tree) return NULL;
  KrBuf b = {0};
  const char *define = NULL;
  for (size_t i = 0; i < spec->launches.len; i++) {
    const char *name = spec->launches.data[i].kernel;
    const KrKernel *k = kr_model_find_launch(s->model, name);
    bool again = false;
    for (size_t j = 0; j < i && !again; j++) again = strcmp(spec->launches.data[j].kernel, name) == 0;
    if (!k || again) continue;
    KrLoops *loops = kr_loops_new(s->tree, k, a);
    for (size_t l = 0; l < k->loops.len; l++) {
      const KrLoopInfo *li = kr_loops_info(loops, l);
      if (li->trip_kind != KR_TRIP_CONST || li->trip < 64 || ts_node_is_null(li->bound)) continue;
      uint32_t bs = ts_node_start_byte(li->bound), be = ts_node_end_byte(li->bound);
      const char *bound = kr_arena_strndup(a, s->text + bs, be - bs);
      if (!define && kr_loops_is_macro(loops, bound)) define = bound;
      if (at && !b.len) *at = k->loops.data[l].span.start;
      kr_buf_printf(&b, "%s'%s' loops to %s (%lld iterations, line %u)", b.len ? "; " : "", k->name, bound, li->trip,
                    k->loops.data[l].line);
    }
  }
  if (!b.len) return NULL;
  const char *r = kr_arena_printf(a, "%s, whatever the test sizes: give a smaller define (%s) to verify at a size the "
                                     "emulator can run, or a longer --timeout",
                                  b.data, define ? kr_arena_printf(a, "--define %s=…", define) : "--define NAME=…");
  kr_buf_free(&b);
  return r;
}

/* ---- Fixed work, predicted before the run -------------------------------------------------------------
 * The emulator's cost, measured by bench/bench_emu.c (bench/results/emu-cost-2026-12-03.json, with
 * the shuffled order and the default race check, as verify runs): about 0.6 us a thread, 80 to 95 ns
 * a loop iteration, 260 to 290 ns a __syncthreads. A launch's time is predicted from its threads and
 * what each runs of the loops whose bounds are compile-time constants (a symbolic loop counts once,
 * and threads a guard leaves out count as the others: a rough figure, said as one). */

static const double kEmuThreadNs = 600, kEmuIterationNs = 90, kEmuBarrierNs = 275;

/* How many times a thread runs the body of loop l: its constant trip count times its enclosing
 * loops' (a loop whose count is not a constant counts once). */
static double loop_runs(const KrKernel *k, KrLoops *loops, int l) {
  double runs = 1;
  for (; l >= 0; l = k->loops.data[l].parent) {
    const KrLoopInfo *li = kr_loops_info(loops, (size_t)l);
    if (li->trip_kind == KR_TRIP_CONST && li->trip > 0) runs *= (double)li->trip;
  }
  return runs;
}

/* The innermost loop of k whose span holds byte `at`, or -1. */
static int loop_at(const KrKernel *k, uint32_t at) {
  int in = -1;
  for (size_t l = 0; l < k->loops.len; l++) {
    KrSpan sp = k->loops.data[l].span;
    if (sp.start <= at && at < sp.end && (in < 0 || k->loops.data[l].depth > k->loops.data[in].depth)) in = (int)l;
  }
  return in;
}

/* Adds to *barriers the __syncthreads calls under node n, each weighted by how often a thread runs it. */
static void count_barriers(const KrSide *s, const KrKernel *k, KrLoops *loops, TSNode n, double *barriers, KrArena *a) {
  if (ts_node_symbol(n) == s->tree->sym.call_expression) {
    const char *callee = kr_node_callee(s->tree, n, a);
    if (callee && strcmp(callee, "__syncthreads") == 0) {
      int l = loop_at(k, ts_node_start_byte(n));
      *barriers += l < 0 ? 1 : loop_runs(k, loops, l);
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    count_barriers(s, k, loops, ts_node_named_child(n, i), barriers, a);
}

/* What one thread of kernel k runs: loop iterations (of constant-bound loops and those inside
 * them) and barriers. */
static void thread_work(const KrSide *s, const KrKernel *k, double *iterations, double *barriers, KrArena *a) {
  KrLoops *loops = kr_loops_new(s->tree, k, a);
  *iterations = *barriers = 0;
  for (size_t l = 0; l < k->loops.len; l++)
    if (kr_loops_info(loops, l)->trip_kind == KR_TRIP_CONST) *iterations += loop_runs(k, loops, (int)l);
  if (!ts_node_is_null(k->body)) count_barriers(s, k, loops, k->body, barriers, a);
}

static const char *seconds_text(double t, KrArena *a) {
  return t < 10 ? kr_arena_printf(a, "%.1f s", t) : kr_arena_printf(a, "%.0f s", t);
}

const char *kr__fixed_work_predict(const KrSide *s, const KrSpec *spec, KrEnv *e, double timeout, double factor,
                                   uint32_t *at, double *seconds, KrArena *a) {
  *seconds = 0;
  if (spec->entry || !s->model || !s->tree || timeout <= 0) return NULL;
  const char *hint = fixed_work_hint(s, spec, at, a);
  const KrLaunchList *list;
  if (!hint || case_launches(spec, e, a, &list)) return NULL;
  const char *worst = NULL;
  double threads_of_worst = 0, iters_of_worst = 0, barriers_of_worst = 0;
  for (size_t j = 0; j < list->len; j++) {
    const KrLaunchSpec *l = &list->data[j];
    size_t ci = change_index(spec, list, j, a);
    const KrLaunchChange *c = ci < s->changes.len ? &s->changes.data[ci] : NULL;
    const KrKernel *k = kr__kernel_of(s, l->kernel);
    if (!k || (c && c->drops)) continue;
    KrDim3 grid, block;
    size_t shmem;
    int64_t *extra = kr_arena_alloc(a, (kr_launch_args_count(c ? c->args : NULL) + 1) * sizeof *extra);
    e->launch = l, e->kernel = k;
    const char *why = launch_dims(e, l, c, a, &grid, &block, &shmem, extra);
    e->launch = NULL, e->kernel = NULL;
    if (why) continue;
    double threads = (double)grid_threads(grid) * (double)grid_threads(block), iters, barriers;
    thread_work(s, k, &iters, &barriers, a);
    double t = threads * (kEmuThreadNs + kEmuIterationNs * iters + kEmuBarrierNs * barriers) * 1e-9;
    if (t <= *seconds) continue;
    *seconds = t, worst = k->name;
    threads_of_worst = threads, iters_of_worst = iters, barriers_of_worst = barriers;
  }
  if (!worst || *seconds <= factor * timeout) return NULL;
  return kr_arena_printf(a, "the %s's launch of '%s' at %s is predicted to take ~%s on the emulator (%.0f threads, each "
                            "running ~%.0f loop iterations%s; measured: ~0.6 us a thread, ~90 ns an iteration%s) against "
                            "a %g s limit: %s", s->label, worst, kr__sizes_text(spec, e->sizes, a), seconds_text(*seconds, a),
                         threads_of_worst, iters_of_worst,
                         barriers_of_worst > 0 ? kr_arena_printf(a, " and ~%.0f __syncthreads", barriers_of_worst) : "",
                         barriers_of_worst > 0 ? ", ~275 ns a __syncthreads" : "", timeout, hint);
}

/* A spec's entry, called once per buffer set in one child (kr_emu_run_entry). */
static const char *run_entry(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *const *sets,
                             size_t nsets, const KrRunHow *how, KrArena *a) {
  KrEmuEntryCall *calls = kr_arena_alloc(a, (nsets + 1) * sizeof *calls);
  for (size_t r = 0; r < nsets; r++) {
    KrCudaLaunch *l;
    size_t one;
    const char *why = pack_entry(spec, e, sets[r], a, &l, &one);
    if (why) return why;
    calls[r] = (KrEmuEntryCall){l->args, l->nargs};
  }
  KrDiags *d = kr_diags_new();
  bool hung = false;
  KrEmuOptions o = {.seed = how->seed, .shuffle = how->shuffle, .timeout_s = how->timeout,
                    .timed_out = &hung, .race_check = how->races};
  KrStatus st = kr_emu_run_entry(s->mod, calls, nsets, &o, d);
  if (how->hung) *how->hung = hung;
  for (size_t i = 0; how->warning && !*how->warning && i < d->items.len; i++)
    if (d->items.data[i].severity == KR_DIAG_WARNING)
      *how->warning = kr_arena_printf(a, "the %s: %s", s->label, d->items.data[i].message);
  const char *fail = st == KR_OK ? NULL : joined(d, s->label, a);
  kr_diags_free(d);
  return fail;
}

const char *kr__run_rounds(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *const *sets,
                           size_t nsets, const KrRunHow *how, KrArena *a) {
  if (how->hung) *how->hung = false;
  if (s->device == KR_DEVICE_CUDA) return run_gpu(s, spec, e, sets, nsets, how, a);
  if (spec->entry) return run_entry(s, spec, e, sets, nsets, how, a);
  size_t n;
  const char *ready = kr__workspaces_ready(s, spec, e, NULL, a);
  if (ready) return ready;
  KrEmuRound *rounds = kr_arena_alloc(a, (nsets + 1) * sizeof *rounds);
  for (size_t r = 0; r < nsets; r++) {
    KrCudaLaunch *ls;
    const char *why = kr__pack(s, spec, e, sets[r], a, &ls, &n);
    if (why) return why;
    KrEmuLaunch *el = kr_arena_alloc(a, (n + 1) * sizeof *el);
    for (size_t i = 0; i < n; i++)
      el[i] = (KrEmuLaunch){ls[i].kernel, ls[i].grid, ls[i].block, ls[i].shmem, ls[i].args, ls[i].nargs,
                            how->blocks ? how->blocks[i] : NULL, how->blocks ? how->nblocks[i] : 0};
    rounds[r] = (KrEmuRound){el, n};
  }
  KrDiags *d = kr_diags_new();
  bool hung = false;
  KrEmuOptions o = {.seed = how->seed, .shuffle = how->shuffle, .timeout_s = how->timeout,
                    .timed_out = &hung, .race_check = how->races};
  KrStatus st = kr_emu_run_rounds(s->mod, rounds, nsets, &o, d);
  if (how->hung) *how->hung = hung;
  for (size_t i = 0; how->warning && !*how->warning && i < d->items.len; i++)
    if (d->items.data[i].severity == KR_DIAG_WARNING)
      *how->warning = kr_arena_printf(a, "the %s: %s", s->label, d->items.data[i].message);
  const char *fail = st == KR_OK ? NULL : joined(d, s->label, a);
  const char *hint = fail && hung ? fixed_work_hint(s, spec, NULL, a) : NULL;
  if (hint) fail = kr_arena_printf(a, "%s (%s)", fail, hint);
  kr_diags_free(d);
  return fail;
}

const char *kr__run_side(const KrSide *s, const KrSpec *spec, KrEnv *e, const KrPBuf *b,
                         bool shuffle, uint32_t seed, double timeout, KrArena *a) {
  KrRunHow how = {.shuffle = shuffle, .seed = seed, .timeout = timeout};
  return kr__run_rounds(s, spec, e, &b, 1, &how, a);
}

/* ---- Preparing both sides ------------------------------------------------------------------------ */

const char *kr__sizes_text(const KrSpec *s, const int64_t *v, KrArena *a) {
  KrBuf b = {0};
  for (size_t i = 0; i < s->sizes.len; i++)
    kr_buf_printf(&b, "%s%s=%lld", i ? ", " : "", s->sizes.data[i].name, (long long)v[i]);
  const char *r = kr_arena_strdup(a, b.data ? b.data : "");
  kr_buf_free(&b);
  return r;
}

const char **kr__kernel_names(const KrSpec *s, KrArena *a) {
  const char **names = kr_arena_alloc(a, (s->launches.len + 1) * sizeof *names);
  for (size_t i = 0; i < s->launches.len; i++) names[i] = s->launches.data[i].kernel;
  return names;
}

/* Whether a spec launch ("scale", "ns::k", "tk<float, 256>") is of the kernel a pass record
 * names (its qualified name, "ns::k", without template arguments; an explicit specialization's,
 * "tk<float, 256>", with them): the launch's name, blanks normalised, must equal the record's, or,
 * with its last component's template arguments dropped, the qualified name or, as kr_model_find
 * accepts, its last component. An exact comparison, so that a change to `scale`'s launch never
 * reaches a launch of `scale2`. (A record of a template whose file also specializes it for the
 * launch's arguments still matches the launch, which runs the specialization.) */
bool kr__launch_is_kernel(const char *launch, const char *qualified, KrArena *a) {
  char *n = kr__emu_norm_name(a, launch);
  if (strcmp(n, kr__emu_norm_name(a, qualified)) == 0) return true;
  size_t len = strlen(n);
  if (len && n[len - 1] == '>') {
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
      if (n[i] == '>') depth++;
      else if (n[i] == '<' && --depth == 0) {
        n[i] = 0;
        break;
      }
    }
  }
  if (strncmp(n, "::", 2) == 0) n += 2;
  if (strcmp(n, qualified) == 0) return true;
  const char *last = qualified;
  for (const char *p = strstr(qualified, "::"); p; p = strstr(p + 2, "::")) last = p + 2;
  return last != qualified && strcmp(n, last) == 0;
}

/* Sets up the launch changes of both sides (none yet) and the candidate's info for a candidate
 * of the spec's tolerance; the reference's changes are set once, however many candidates it
 * serves (bench --steps builds several against one reference). */
static void candidate_init(const KrSpec *spec, KrSide *ref, KrSide *cand, KrCandidateInfo *info,
                           KrArena *a) {
  KrLaunchChange none = {0};
  for (size_t i = 0; i < spec->launches.len; i++) kr_vec_push(a, &cand->changes, none);
  while (ref->changes.len < spec->launches.len) kr_vec_push(a, &ref->changes, none);
  cand->ws = kr_arena_alloc(a, (spec->launches.len + 1) * sizeof *cand->ws);
  info->rtol = spec->rtol;
  info->precision = "strict fp32";
  info->reassociates = false;
  info->lowered = false;
  memset(&info->aligned, 0, sizeof info->aligned);
}

/* Adds record pr's wide accesses (KrAligned) of a kernel the spec launches to info->aligned, once
 * per kernel and parameter (the widest unit). */
static void take_aligned(const KrSpec *spec, const KrPassRecord *pr, KrCandidateInfo *info, KrArena *a) {
  bool launched = false;
  for (size_t j = 0; j < spec->launches.len && !launched; j++)
    launched = kr__launch_is_kernel(spec->launches.data[j].kernel, pr->kernel, a);
  for (size_t i = 0; (launched || spec->entry) && i < pr->aligned.len; i++) {
    const KrAligned *al = &pr->aligned.data[i];
    KrAlignNeed *have = NULL;
    for (size_t k = 0; k < info->aligned.len && !have; k++)
      if (strcmp(info->aligned.data[k].kernel, pr->kernel) == 0 && strcmp(info->aligned.data[k].param, al->param) == 0)
        have = &info->aligned.data[k];
    if (have && have->bytes >= al->bytes) continue;
    if (have) {
      have->bytes = al->bytes, have->pass = kr_arena_strdup(a, pr->pass);
      continue;
    }
    KrAlignNeed n = {kr_arena_strdup(a, pr->kernel), kr_arena_strdup(a, al->param), al->bytes, kr_arena_strdup(a, pr->pass)};
    kr_vec_push(a, &info->aligned, n);
  }
}

KrStatus kr__candidate_prefix(const KrSpec *spec, const KrRecipeRun *run, size_t passes, KrSide *ref,
                              KrSide *cand, KrCandidateInfo *info, KrArena *a, KrDiags *d) {
  candidate_init(spec, ref, cand, info, a);
  bool whole = passes == SIZE_MAX;   /* the recipe's candidate, named by the recipe */
  if (whole) passes = run->records.len;
  if (passes > run->records.len) {
    kr_diag_pos(d, KR_DIAG_ERROR, run->recipe_path, 0, 0, "the recipe applied %zu passes, not %zu",
                run->records.len, passes);
    return KR_ERR;
  }
  const KrPassRecord *last = passes ? &run->records.data[passes - 1] : NULL;
  cand->text = last ? kr_arena_strndup(a, last->after, last->after_len) : kr_arena_strndup(a, ref->text, ref->len);
  cand->len = last ? last->after_len : ref->len;
  /* The driver's name for the text after a pass, as in its diagnostics. */
  cand->path = last ? kr_arena_printf(a, "%s (after pass %zu, %s)", ref->path, passes, last->pass)
                    : kr_arena_strdup(a, ref->path);
  info->label = last ? kr_arena_printf(a, "%s up to pass %zu (%s) applied to %s", run->recipe_path, passes,
                                       last->pass, ref->path)
                     : kr_arena_printf(a, "%s (no pass of %s applied)", ref->path, run->recipe_path);
  for (size_t i = 0; i < passes; i++) {
    const KrPassRecord *pr = &run->records.data[i];
    const KrPass *pass = kr_pass_find(pr->pass);
    if (pass && pass->reassociates) info->reassociates = true;
    take_aligned(spec, pr, info, a);
    if (pr->precision == KR_PRECISION_LOWERS && pr->tolerance) {
      double t = strtod(pr->tolerance, NULL);
      if (t > info->rtol) info->rtol = t;
      info->precision = kr_arena_printf(a, "lowered (%s: tolerance %s)", pr->pass, pr->tolerance);
      info->lowered = true;
    }
    for (size_t j = 0; j < spec->launches.len; j++) {
      KrLaunchChange *c = &cand->changes.data[j];
      const char *k = spec->launches.data[j].kernel;
      if (!kr__launch_is_kernel(k, pr->kernel, a)) continue;
      if (pr->launch.grid) c->grid = kr_arena_strdup(a, pr->launch.grid);
      if (pr->launch.block) c->block = kr_arena_strdup(a, pr->launch.block);
      if (pr->launch.shmem) c->shmem = kr_arena_strdup(a, pr->launch.shmem);
      if (pr->launch.workspace) c->workspace = kr_arena_strdup(a, pr->launch.workspace);
      if (pr->launch.args) c->args = kr_arena_strdup(a, pr->launch.args);
      if (pr->launch.borrows) c->borrows = kr_arena_strdup(a, pr->launch.borrows), c->lender = kr_arena_strdup(a, pr->launch.drops);
      if (pr->launch.fills) c->fills = kr_arena_strdup(a, pr->launch.fills);
    }
    for (size_t j = 0; pr->launch.drops && j < spec->launches.len; j++)
      if (kr__launch_is_kernel(spec->launches.data[j].kernel, pr->launch.drops, a))
        cand->changes.data[j].drops = kr_arena_strdup(a, pr->kernel);
  }
  if (whole) {
    cand->path = kr_arena_printf(a, "%s (after %s)", ref->path, run->recipe_path);
    info->label = kr_arena_printf(a, "%s applied to %s", run->recipe_path, ref->path);
  }
  return KR_OK;
}

/* The candidate of a .cu file: its text, read from its folder (searched first for its includes). */
static KrStatus candidate_file(const KrSpec *spec, const char *candidate, KrSide *ref, KrSide *cand,
                               KrCandidateInfo *info, KrArena *a, KrDiags *d) {
  candidate_init(spec, ref, cand, info, a);
  char *t;
  if (kr_file_read(candidate, a, &t, &cand->len, d) != KR_OK) return KR_ERR;
  cand->text = t, cand->path = candidate, info->label = candidate;
  const char *slash = strrchr(candidate, '/');
  cand->own_dir = slash ? kr_arena_strndup(a, candidate, slash == candidate ? 1 : (size_t)(slash - candidate)) : ".";
  return KR_OK;
}

KrStatus kr__candidate_of(const KrSpec *spec, const KrCandidateSource *from, KrSide *ref, KrSide *cand,
                          KrCandidateInfo *info, KrArena *a, KrDiags *d) {
  if (from->run) return kr__candidate_prefix(spec, from->run, from->passes, ref, cand, info, a, d);
  if (from->candidate) return candidate_file(spec, from->candidate, ref, cand, info, a, d);
  candidate_init(spec, ref, cand, info, a);   /* the original itself */
  cand->text = kr_arena_strndup(a, ref->text, ref->len), cand->len = ref->len;
  cand->path = ref->path, info->label = ref->path;
  return KR_OK;
}

void kr_verify_warn_unlaunched(const KrSpec *spec, const KrRecipeRun *run, KrArena *a, KrDiags *d) {
  bool launched = false;   /* a pass rewrote a kernel the spec launches */
  for (size_t i = 0; i < run->records.len; i++) {
    const KrPassRecord *pr = &run->records.data[i];
    for (size_t j = 0; j < spec->launches.len && !launched; j++) launched = kr__launch_is_kernel(spec->launches.data[j].kernel, pr->kernel, a);
  }
  if (run->records.len && !launched)
    kr_diag_pos(d, KR_DIAG_WARNING, run->recipe_path, 0, 0, "the recipe's passes rewrite only kernels the spec does not launch "
                "('%s' first): the candidate runs the original's kernels, so this check says nothing about them",
                run->records.data[0].kernel);
}

/* A side's build flags: the spec's, with a candidate file's own folder searched first. */
static const KrBuildFlags *side_flags(const KrSide *s, const KrSpec *spec, KrArena *a) {
  if (!s->own_dir || (spec->build.source_dir && strcmp(s->own_dir, spec->build.source_dir) == 0)) return &spec->build;
  KrBuildFlags *f = kr_arena_alloc(a, sizeof *f);
  memset(f, 0, sizeof *f);
  f->source_dir = s->own_dir;
  if (spec->build.source_dir) kr_vec_push(a, &f->include_dirs, spec->build.source_dir);
  kr_build_merge(f, &spec->build, a);
  return f;
}

/* A static host function whose body kr__gpu_text left out is "declared but never referenced" (nvcc's
 * warning 177): that is krewrite's doing, not the source's. */
const char *const kr__gpu_flags[] = {"-diag-suppress=177"};

/* What the GPU build of a side with the spec's entry appends (cuda.h, kr_cuda_is_library): the
 * entry called with parameter i read from args[i] (as the emulator's kr_emu_call_entry reads them;
 * the function's own types, deduced, so no header is needed), then the CUDA runtime's last error.
 * kr_gpu_entry_init starts the runtime before the GPU process enters its sandbox. */
static void entry_trampoline(KrBuf *b, const char *name, size_t nparams) {
  kr_buf_printf(b, "\n// krewrite: the spec's entry '%s', called by krewrite's GPU process (runtime/cuda.c)\n"
                   "template <class T> struct kr_gpu_plain_ { typedef T t; };\n"
                   "template <class T> struct kr_gpu_plain_<const T> { typedef T t; };\n"
                   "template <class T> struct kr_gpu_plain_<T &> { typedef typename kr_gpu_plain_<T>::t t; };\n"
                   "template <class R", name);
  for (size_t i = 0; i < nparams; i++) kr_buf_printf(b, ", class P%zu", i);
  kr_buf_puts(b, ">\nstatic void kr_gpu_entry_run_(R (*f)(");
  for (size_t i = 0; i < nparams; i++) kr_buf_printf(b, "%sP%zu", i ? ", " : "", i);
  kr_buf_puts(b, "), void **a) {\n  (void)a;\n  f(");
  for (size_t i = 0; i < nparams; i++)
    kr_buf_printf(b, "%s*(typename kr_gpu_plain_<P%zu>::t *)a[%zu]", i ? ", " : "", i, i);
  kr_buf_printf(b, ");\n}\n"
                   "static int kr_gpu_entry_error_(cudaError_t e, char *err, unsigned long n) {\n"
                   "  const char *parts[3] = {cudaGetErrorName(e), \": \", cudaGetErrorString(e)};\n"
                   "  unsigned long k = 0;\n"
                   "  for (int i = 0; i < 3; i++)\n"
                   "    for (const char *p = parts[i]; p && *p && k + 1 < n; p++) err[k++] = *p;\n"
                   "  if (n) err[k] = 0;\n"
                   "  return e == cudaSuccess ? -1 : (int)e;\n"
                   "}\n"
                   "extern \"C\" __attribute__((visibility(\"default\"))) int kr_gpu_entry_init(char *err, unsigned long n) {\n"
                   "  cudaError_t e = cudaFree(0);\n"
                   "  return e == cudaSuccess ? 0 : kr_gpu_entry_error_(e, err, n);\n"
                   "}\n"
                   "extern \"C\" __attribute__((visibility(\"default\"))) int kr_gpu_entry_call(void **a, char *err, unsigned long n) {\n"
                   "  kr_gpu_entry_run_(&%s, a);\n"
                   "  cudaError_t e = cudaGetLastError();\n"
                   "  return e == cudaSuccess ? 0 : kr_gpu_entry_error_(e, err, n);\n"
                   "}\n", name);
}

const char *kr__gpu_text(const KrSpec *spec, const KrTree *tree, const char *text, size_t len, size_t *out_len,
                         KrArena *a) {
  const char *keep = spec->entry ? spec->entry->name : NULL;
  if (tree) text = kr_model_drop_host_bodies(tree, text, len, keep ? &keep : NULL, keep ? 1 : 0, a);
  KrBuf b = {0};
  if (spec->entry) {
    entry_trampoline(&b, spec->entry->name, spec->entry->fn->params.len);
    const char *r = kr_arena_printf(a, "%.*s%s%s", (int)len, text, len && text[len - 1] != '\n' ? "\n" : "", b.data);
    kr_buf_free(&b);
    *out_len = strlen(r);
    return r;
  }
  for (size_t i = 0; i < spec->launches.len; i++) {
    const char *k = spec->launches.data[i].kernel;
    if (!strchr(k, '<')) continue;
    bool again = false;   /* the same instantiation launched twice: named once */
    for (size_t j = 0; j < i && !again; j++) again = strcmp(spec->launches.data[j].kernel, k) == 0;
    if (!again) kr_buf_printf(&b, "  (void *)&%s,\n", k);
  }
  if (!b.len) {
    *out_len = len;
    return text;
  }
  const char *r = kr_arena_printf(a, "%.*s%s\n// krewrite: the template kernels the problem launches, instantiated so that "
                                     "the cubin holds them\nstatic void *const kr_launched_instances[] "
                                     "__attribute__((used)) = {\n%s};\n",
                                  (int)len, text, len && text[len - 1] != '\n' ? "\n" : "", b.data);
  kr_buf_free(&b);
  *out_len = strlen(r);
  return r;
}

/* With a spec's entry: the side defines it as a host function with the spec's parameters (a
 * candidate calls its own, with the arguments the spec gives the original's). */
static KrStatus entry_matches(const KrSide *s, const KrSpec *spec, KrArena *a, KrDiags *d) {
  const KrEntrySpec *en = spec->entry;
  const KrKernel *fn;
  const char *why;
  if (kr__entry_fn(s->tree, en->name, a, &fn, &why) != KR_OK) {
    kr_diag_pos(d, KR_DIAG_ERROR, s->path, 0, 0, "the %s cannot be run through the spec's entry (%s): %s", s->label,
                spec->path, why);
    return KR_ERR;
  }
  bool same = fn->params.len == en->fn->params.len;
  for (size_t i = 0; same && i < fn->params.len; i++)
    same = (fn->params.data[i].pointer_depth > 0) == (en->fn->params.data[i].pointer_depth > 0) &&
           kr__param_scalar(fn, i, en->name, a) == kr__param_scalar(en->fn, i, en->name, a);
  if (!same)
    kr_diag_pos(d, KR_DIAG_ERROR, s->path, fn->line, fn->col, "the %s's entry '%s' does not take the parameters of the "
                "original's (%s: %zu), which the spec's entry passes (%s)", s->label, en->name, spec->source,
                en->fn->params.len, spec->path);
  return same ? KR_OK : KR_ERR;
}

KrStatus kr__side_build(KrSide *s, const KrSpec *spec, const char *cache_dir, const char *arch,
                        KrArena *a, KrDiags *d) {
  if (!s->build) s->build = &spec->build;
  if (kr__side_load(s, d) != KR_OK) return KR_ERR;
  const KrBuildFlags *bf = side_flags(s, spec, a);
  if (spec->entry && entry_matches(s, spec, a, d) != KR_OK) return KR_ERR;
  if (spec->entry && s->device != KR_DEVICE_CUDA)
    return kr_emu_build_entry(s->path, s->text, s->len, NULL, 0, spec->entry->name, bf, cache_dir, &s->mod, d);
  if (s->device == KR_DEVICE_CUDA) {
    /* With an entry: a host library, the entry and what it calls with the kernels (cuda.h). */
    KrNvccOptions o = {.arch = arch, .build = bf, .flags = kr__gpu_flags, .nflags = 1,
                       .shared = spec->entry != NULL};
    size_t n;
    const char *t = kr__gpu_text(spec, s->tree, s->text, s->len, &n, a);
    return kr_nvcc_compile(s->path, t, n, &o, a, &s->cubin, d);
  }
  /* The spec's kernels, and the fill a launch change asks for (KrLaunchChange.fills). */
  const char **names = kr_arena_alloc(a, (spec->launches.len + 2) * sizeof *names);
  memcpy(names, kr__kernel_names(spec, a), spec->launches.len * sizeof *names);
  size_t n = spec->launches.len;
  for (size_t i = 0; i < s->changes.len && n == spec->launches.len; i++)
    if (s->changes.data[i].fills) names[n++] = KR_FILL_KERNEL;
  return kr_emu_build_with(s->path, s->text, s->len, names, n, bf, cache_dir, &s->mod, d);
}

double kr__output_rtol(double rtol, bool widened, KrDtype t) {
  double u = t == KR_DT_BF16 ? 0x1p-7 : t == KR_DT_F16 ? 0x1p-10 : 0;
  if (!widened || u == 0) return rtol;
  return fmax(rtol, sqrt(2 * rtol * u));
}
