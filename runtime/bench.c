/* runtime/bench.c: `krewrite bench` (bench.h). The reference and the candidate are built with
 * nvcc, run once each at the benchmark sizes on the same inputs (their outputs compared), then
 * timed by kr_cuda_bench, interleaved in one child process; both make the inputs on the device
 * with the GPU's fill module (the host's values). */
#include "runtime/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fill.h"
#include "runtime/fill_module.h"
#include "runtime/prun.h"

/* Whether every output is within its tolerance (kr__output_rtol), each buffer on its own. */
static bool outputs_within(const KrPBuf *b, size_t n, double rtol, bool widened) {
  for (size_t i = 0; i < n; i++) {
    if (b[i].spec->role != KR_ROLE_OUTPUT && b[i].spec->role != KR_ROLE_INOUT) continue;
    double num = 0, den = 0;
    for (size_t k = 0; k < b[i].count; k++) {
      double r = kr_elem_get(b[i].ref, b[i].spec->dtype, k), o = kr_elem_get(b[i].dev, b[i].spec->dtype, k);
      if (isnan(r) || isnan(o)) return false;
      num += (o - r) * (o - r), den += r * r;
    }
    double e = den > 0 ? sqrt(num / den) : (num > 0 ? INFINITY : 0);
    if (e > kr__output_rtol(rtol, widened, b[i].spec->dtype)) return false;
  }
  return true;
}

static double output_rel_l2(const KrPBuf *b, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    if (b[i].spec->role != KR_ROLE_OUTPUT && b[i].spec->role != KR_ROLE_INOUT) continue;
    for (size_t k = 0; k < b[i].count; k++) {
      double r = kr_elem_get(b[i].ref, b[i].spec->dtype, k), o = kr_elem_get(b[i].dev, b[i].spec->dtype, k);
      if (isnan(r) || isnan(o)) return INFINITY;
      num += (o - r) * (o - r), den += r * r;
    }
  }
  return den > 0 ? sqrt(num / den) : (num > 0 ? INFINITY : 0);
}

static const char *write_raw(const char *dir, const char *name, const char *suffix, const void *p,
                             size_t bytes, KrArena *a) {
  const char *path = kr_arena_printf(a, "%s/%s%s.bin", dir, name, suffix);
  KrDiags *d = kr_diags_new();
  KrStatus s = kr_file_write_atomic(path, p, bytes, d);
  kr_diags_free(d);
  return s == KR_OK ? NULL : kr_arena_printf(a, "cannot write %s", path);
}

/* DIR/manifest.json and the raw buffers, for bench/torch_seed.py. */
static const char *dump(const char *dir, const KrSpec *s, const int64_t *sizes, const KrPBuf *b,
                        KrArena *a) {
  KrBuf m = {0};
  kr_buf_printf(&m, "{\"problem\": \"%s\", \"sizes\": {", s->name);
  for (size_t i = 0; i < s->sizes.len; i++)
    kr_buf_printf(&m, "%s\"%s\": %lld", i ? ", " : "", s->sizes.data[i].name, (long long)sizes[i]);
  kr_buf_puts(&m, "}, \"buffers\": [");
  static const char *const roles[] = {"input", "output", "inout", "temp"};
  const char *err = NULL;
  for (size_t i = 0; i < s->buffers.len && !err; i++) {
    const KrPBuf *x = &b[i];
    kr_buf_printf(&m, "%s{\"name\": \"%s\", \"dtype\": \"%s\", \"count\": %zu, \"role\": \"%s\"}",
                  i ? ", " : "", x->spec->name, kr_dtype_name(x->spec->dtype), x->count, roles[x->spec->role]);
    if (x->spec->role == KR_ROLE_INPUT) err = write_raw(dir, x->spec->name, "", x->snapshot, x->bytes, a);
    else if (x->spec->role != KR_ROLE_TEMP) {
      err = write_raw(dir, x->spec->name, "", x->ref, x->bytes, a);
      if (!err) err = write_raw(dir, x->spec->name, ".candidate", x->dev, x->bytes, a);
    }
  }
  kr_buf_puts(&m, "]}\n");
  if (!err) err = write_raw(dir, "manifest", "", m.data, m.len, a);
  if (!err) { /* manifest.bin -> manifest.json */
    const char *from = kr_arena_printf(a, "%s/manifest.bin", dir), *to = kr_arena_printf(a, "%s/manifest.json", dir);
    if (rename(from, to) != 0) err = "cannot rename the manifest";
  }
  kr_buf_free(&m);
  return err;
}


static double floor_value(KrEnv *e, const char *expr, KrArena *a) {
  int64_t v;
  const char *why;
  return expr && kr__eval(e, expr, &v, a, &why) == KR_OK ? (double)v : 0;
}

/* ---- On the GPU, inputs made on the device ----------------------------------------------------------
 * The check and the timing make the buffers on the device with the fill module (the values the
 * host would fill, runtime/fill.h), so the inputs of a gigabyte problem never cross PCIe; only
 * the CSR structures are filled on the host and copied, and the outputs come back to be
 * compared (and, with --dump, the inputs too). */

enum { FILL_MODULE = 2 };   /* the check's server: reference, candidate, fill */

static const char *data(KrCudaServer *sv, KrCudaData *ops, size_t n, KrArena *a) {
  KrDiags *d = kr_diags_new();
  const char *why = NULL;
  if (kr_cuda_server_data(sv, FILL_MODULE, ops, n, d) != KR_OK) {
    const char *m = kr_diags_first_error(d);
    why = kr_arena_printf(a, "on the GPU: %s", m ? m : "a data request failed");
  }
  kr_diags_free(d);
  return why;
}

/* Makes the buffers on the device (the CSR structures from their snapshots). */
static const char *make(KrCudaServer *sv, KrPBuf *b, size_t nb, KrArena *a) {
  KrCudaData *ops = kr_arena_alloc(a, (nb + 1) * sizeof *ops);
  for (size_t i = 0; i < nb; i++)
    if (b[i].spec->role != KR_ROLE_OUTPUT && !kr_fill_generated(b[i].spec->fill.kind))
      memcpy(b[i].dev, b[i].snapshot, b[i].bytes);
  return data(sv, ops, kr__bufs_device_ops(b, nb, 1, ops), a);
}

/* Copies back the buffers of the given roles: into `ref` (into_ref) or `dev`. */
static const char *fetch(KrCudaServer *sv, KrPBuf *b, size_t nb, bool inputs, bool into_ref, KrArena *a) {
  KrCudaData *ops = kr_arena_alloc(a, (nb + 1) * sizeof *ops);
  size_t n = 0;
  for (size_t i = 0; i < nb; i++) {
    KrRole r = b[i].spec->role;
    if (inputs ? r != KR_ROLE_INPUT : r != KR_ROLE_OUTPUT && r != KR_ROLE_INOUT) continue;
    ops[n++] = (KrCudaData){.kind = KR_CUDA_DATA_DOWNLOAD, .name = b[i].spec->name, .host = b[i].dev,
                            .bytes = b[i].bytes, .to = into_ref ? b[i].ref : NULL};
  }
  return data(sv, ops, n, a);
}

static const char *server_start(KrSide *ref, KrSide *cand, const KrCubin *fill, const KrSpec *s, KrEnv *e,
                                 double timeout, KrCudaServer **sv, KrArena *a) {
  uint64_t bytes, *each = kr_arena_alloc(a, (s->buffers.len + 1) * sizeof *each), pool;
  const char *why = kr__bufs_bytes(s, e, &bytes, each, a);
  if (why) return why;
  pool = bytes + 256 * (2 * s->buffers.len + 1);
  for (size_t i = 0; i < s->buffers.len; i++)
    if (s->buffers.data[i].role == KR_ROLE_OUTPUT || s->buffers.data[i].role == KR_ROLE_INOUT) pool += each[i];
  pool += kr__workspaces_bytes(cand, s, e, a);   /* the candidate's workspaces, from the pool too */
  KrCudaServerModule mods[3] = {{ref->cubin.data, ref->cubin.size, "reference"},
                                {cand->cubin.data, cand->cubin.size, "candidate"},
                                {fill->data, fill->size, "fill module"}};
  KrDiags *d = kr_diags_new();
  if (kr_cuda_server_start(mods, 3, (size_t)pool, timeout, sv, d) != KR_OK) {
    const char *m = kr_diags_first_error(d);
    why = kr_arena_printf(a, "the GPU process could not start: %s", m ? m : "?");
  }
  kr_diags_free(d);
  return why;
}

static const char *run_resident(KrSide *side, size_t module, KrCudaServer *sv, const KrSpec *s, KrEnv *e,
                                KrPBuf *b, double timeout, KrArena *a) {
  const KrPBuf *one = b;
  KrRunHow how = {.seed = 1, .timeout = timeout, .server = sv, .module = module, .resident = true,
                  .fill_module = FILL_MODULE};
  return kr__run_rounds(side, s, e, &one, 1, &how, a);
}

/* Runs both sides once at the benchmark size on the same inputs, made on the device, and
 * compares their outputs; with `dump`, the inputs come back too (into their snapshots). */
static const char *check_once(KrSide *ref, KrSide *cand, const KrCubin *fill, const KrSpec *s, KrEnv *e,
                              KrPBuf *host, bool dump, double timeout, double rtol, bool widened,
                              KrBenchReport *rep, KrArena *a) {
  size_t nb = s->buffers.len;
  KrCudaServer *sv = NULL;
  KrPBuf *b = calloc(nb + 1, sizeof *b);
  const char *why = b ? server_start(ref, cand, fill, s, e, timeout, &sv, a) : "out of memory for buffers";
  if (!why) why = kr__bufs_alloc_in(s, e, b, sv, a);
  if (!why) why = kr__bufs_prepare_host_part(s, e, b, 1, a);
  if (!why) why = make(sv, b, nb, a);
  if (!why) why = run_resident(ref, 0, sv, s, e, b, timeout, a);
  if (!why) why = fetch(sv, b, nb, false, true, a);
  if (!why && dump) why = fetch(sv, b, nb, true, false, a);
  for (size_t i = 0; !why && dump && i < nb; i++)
    if (b[i].spec->role == KR_ROLE_INPUT) memcpy(host[i].snapshot, b[i].dev, b[i].bytes);
  if (!why) why = make(sv, b, nb, a);
  if (!why) why = run_resident(cand, 1, sv, s, e, b, timeout, a);
  if (!why) why = fetch(sv, b, nb, false, false, a);
  if (!why) rep->check_rel_l2 = output_rel_l2(b, nb), rep->check_pass = outputs_within(b, nb, rtol, widened);
  for (size_t i = 0; !why && dump && i < nb; i++)
    if (b[i].spec->role != KR_ROLE_INPUT && b[i].spec->role != KR_ROLE_TEMP) {
      memcpy(host[i].ref, b[i].ref, b[i].bytes);
      memcpy(host[i].dev, b[i].dev, b[i].bytes);
    }
  if (b) kr__bufs_free(b, nb);
  free(b);
  kr_cuda_server_free(sv);
  return why;
}

/* Launches of side k with its workspaces numbered after those of the sides before it: kr__pack
 * numbers a side's workspaces from the spec's buffers on, as if it were the only side. */
static const KrCudaLaunch *renumber(const KrCudaLaunch *ls, size_t n, size_t spec_nb, size_t offset,
                                    KrArena *a) {
  if (!offset) return ls;
  KrCudaLaunch *out = kr_arena_alloc(a, (n + 1) * sizeof *out);
  for (size_t i = 0; i < n; i++) {
    out[i] = ls[i];
    int *idx = kr_arena_alloc(a, (ls[i].nargs + 1) * sizeof *idx);
    for (size_t j = 0; j < ls[i].nargs; j++)
      idx[j] = ls[i].arg_buffer[j] >= (int)spec_nb ? ls[i].arg_buffer[j] + (int)offset : ls[i].arg_buffer[j];
    out[i].arg_buffer = idx;
  }
  return out;
}

/* Times the sides interleaved in one child (kr_cuda_bench): the spec's buffers shared, each
 * side's workspaces a zeroed device copy of their own; t[k] gets side k's times. */
static const char *time_sides(KrSide *const *sides, size_t ns, const KrCubin *fill, const KrSpec *s, KrEnv *e,
                              KrPBuf *b, const KrBenchOptions *o, KrBenchTimes *t, KrArena *a, KrDiags *d) {
  const char *why = kr__bufs_prepare_host_part(s, e, b, 1, a);
  size_t n = s->launches.len, spec_nb = s->buffers.len, nb = spec_nb;
  size_t room = spec_nb + ns * n + 1;
  KrCudaBuffer *cb = kr_arena_alloc(a, room * sizeof *cb);
  KrCudaData *fills = kr_arena_alloc(a, room * sizeof *fills);
  bool *is_input = kr_arena_alloc(a, room), *is_inout = kr_arena_alloc(a, room);
  KrBenchVariant *v = kr_arena_alloc(a, (ns + 1) * sizeof *v);
  for (size_t k = 0; !why && k < ns; k++) {
    KrCudaLaunch *ls;
    size_t nl;
    if (!(why = kr__workspaces_ready(sides[k], s, e, NULL, a)) && !(why = kr__pack(sides[k], s, e, b, a, &ls, &nl))) {
      v[k] = (KrBenchVariant){k ? "candidate" : "original", sides[k]->cubin.data, sides[k]->cubin.size,
                              renumber(ls, nl, spec_nb, nb - spec_nb, a), nl};
      nb += kr__workspace_buffers(sides[k], s, cb + nb);   /* one device copy each, zeroed */
    }
  }
  if (why) return why;
  kr__bufs_device_ops(b, spec_nb, 1, fills);
  for (size_t i = 0; i < spec_nb; i++) {
    cb[i] = (KrCudaBuffer){b[i].spec->name, b[i].dev, b[i].bytes};
    is_input[i] = b[i].spec->role == KR_ROLE_INPUT;
    is_inout[i] = b[i].spec->role == KR_ROLE_INOUT;
  }
  for (size_t i = spec_nb; i < nb; i++)
    fills[i] = (KrCudaData){.kind = KR_CUDA_DATA_SET, .name = cb[i].name, .host = cb[i].host, .bytes = cb[i].bytes,
                            .pattern = 0, .pattern_size = 1, .first_diff = UINT64_MAX};
  KrBenchOptions with = *o;
  with.fills = fills, with.fill_cubin = fill->data, with.fill_size = fill->size;
  if (kr_cuda_bench(v, ns, cb, is_input, is_inout, nb, &with, t, d) != KR_OK) return "timing failed";
  return NULL;
}

static const char *time_both(KrSide *ref, KrSide *cand, const KrCubin *fill, const KrSpec *s, KrEnv *e,
                             KrPBuf *b, const KrBenchOptions *o, KrBenchReport *rep, KrArena *a, KrDiags *d) {
  KrSide *sides[2] = {ref, cand};
  KrBenchTimes t[2];
  const char *why = time_sides(sides, 2, fill, s, e, b, o, t, a, d);
  if (why) return why;
  rep->original = t[0], rep->rewritten = t[1];
  rep->speedup = t[1].median_ms > 0 ? t[0].median_ms / t[1].median_ms : 0;
  return NULL;
}

KrStatus kr_bench(const KrSpec *s, const KrBenchRunOptions *o, KrArena *a, KrBenchReport **out,
                  KrDiags *d) {
  KrBenchReport *rep = kr_arena_alloc(a, sizeof *rep);
  *out = rep;
  rep->problem = s->name;
  rep->reference = s->source;
  KrSide ref = {.label = "reference", .path = s->source, .device = KR_DEVICE_CUDA};
  KrSide cand = {.label = "candidate", .device = KR_DEVICE_CUDA};
  KrCandidateInfo info;
  KrPBuf *b = calloc(s->buffers.len + 1, sizeof *b);
  int64_t *sizes = kr_arena_alloc(a, (s->sizes.len + 1) * sizeof *sizes);
  kr_spec_case(s, SIZE_MAX, sizes);
  KrEnv e = {.spec = s, .sizes = sizes};
  rep->sizes = kr__sizes_text(s, sizes, a);
  char *t;
  const char *why = NULL;
  if (kr_file_read(s->source, a, &t, &ref.len, d) != KR_OK) {
    why = "cannot read the source";
    goto done;
  }
  ref.text = t;
  KrCandidateSource from = {o->candidate, o->run, o->passes};
  if (kr__candidate_of(s, &from, &ref, &cand, &info, a, d) != KR_OK) {
    why = "the candidate could not be made";
    goto done;
  }
  rep->candidate = info.label;
  rep->precision = info.precision;
  if (kr__side_build(&ref, s, NULL, o->arch, a, d) != KR_OK) why = "the reference does not compile";
  else if (kr__side_build(&cand, s, NULL, o->arch, a, d) != KR_OK) why = "the candidate does not compile";
  if (why) goto done;
  rep->arch = ref.cubin.arch;
  KrBuf r1 = {0}, r2 = {0};
  kr_cubin_resources_json(&ref.cubin, &r1);
  kr_cubin_resources_json(&cand.cubin, &r2);
  rep->resources_original = kr_arena_strndup(a, r1.data ? r1.data : "[]", r1.len ? r1.len : 2);
  rep->resources_candidate = kr_arena_strndup(a, r2.data ? r2.data : "[]", r2.len ? r2.len : 2);
  kr_buf_free(&r1);
  kr_buf_free(&r2);
  rep->bytes = floor_value(&e, s->bytes, a);
  rep->flops = floor_value(&e, s->flops, a);
  rep->floor_ms = fmax(rep->bytes / KR_CEIL_BYTES_PER_S, rep->flops / KR_CEIL_FLOPS_PER_S) * 1e3;
  KrCubin fill;
  if (kr__fill_module_build(o->arch, a, &fill, d) != KR_OK) {
    why = "the GPU's fill module (runtime/fill/kr_fill.cu) does not compile";
    goto done;
  }
  if ((why = kr__bufs_alloc(s, &e, b, a))) goto done;
  bool widened = info.lowered || info.reassociates;
  if ((why = check_once(&ref, &cand, &fill, s, &e, b, o->dump_dir != NULL, o->timing.timeout_s, info.rtol, widened,
                        rep, a)))
    goto done;
  if (o->dump_dir && (why = dump(o->dump_dir, s, sizes, b, a))) goto done;
  if (!rep->check_pass) {
    why = kr_arena_printf(a, "at the benchmark size the candidate's output differs from the "
                             "original's (relative L2 %.3g, tolerance %.3g for fp32 outputs); not timed",
                          rep->check_rel_l2, info.rtol);
    goto done;
  }
  why = time_both(&ref, &cand, &fill, s, &e, b, &o->timing, rep, a, d);
done:
  rep->error = why;
  kr__bufs_free(b, s->buffers.len);
  free(b);
  kr__side_free(&ref);
  kr__side_free(&cand);
  return why ? KR_ERR : KR_OK;
}

/* ---- The prefixes of a recipe (bench --steps) ---------------------------------------------------- */

/* Builds step k's side and checks its output against the original's at the benchmark size; the
 * reason it cannot be timed, or NULL. */
static const char *step_ready(KrBenchStep *st, KrSide *ref, KrSide *side, const KrCubin *fill, const KrSpec *s,
                              KrEnv *e, KrPBuf *b, const struct KrRecipeRun *run, const char *arch, double timeout,
                              KrArena *a, KrDiags *d) {
  KrCandidateInfo info;
  if (kr__candidate_prefix(s, run, st->passes, ref, side, &info, a, d) != KR_OK) return "the step could not be made";
  if (kr__side_build(side, s, NULL, arch, a, d) != KR_OK) return "it does not compile";
  KrBuf r = {0};
  kr_cubin_resources_json(&side->cubin, &r);
  st->resources = kr_arena_strndup(a, r.data ? r.data : "[]", r.len ? r.len : 2);
  kr_buf_free(&r);
  KrBenchReport check = {0};
  bool widened = info.lowered || info.reassociates;
  const char *why = check_once(ref, side, fill, s, e, b, false, timeout, info.rtol, widened, &check, a);
  if (why) return why;
  st->check_rel_l2 = check.check_rel_l2;
  if (!check.check_pass)
    return kr_arena_printf(a, "at the benchmark size its output differs from the original's (relative L2 "
                              "%.3g, tolerance %.3g for fp32 outputs)", check.check_rel_l2, info.rtol);
  return NULL;
}

/* Reads and builds the original for the GPU, with the fill module; the reason it cannot, or NULL. */
static const char *reference_ready(KrSide *ref, const KrSpec *s, const char *arch, KrCubin *fill, KrArena *a,
                                   KrDiags *d) {
  KrLaunchChange none = {0};
  for (size_t i = 0; i < s->launches.len; i++) kr_vec_push(a, &ref->changes, none);
  char *t;
  if (kr_file_read(s->source, a, &t, &ref->len, d) != KR_OK) return "cannot read the source";
  ref->text = t;
  if (kr__side_build(ref, s, NULL, arch, a, d) != KR_OK) return "the original does not compile";
  if (kr__fill_module_build(arch, a, fill, d) != KR_OK)
    return "the GPU's fill module (runtime/fill/kr_fill.cu) does not compile";
  return NULL;
}

KrStatus kr_bench_prefixes(const KrSpec *s, const struct KrRecipeRun *run, const char *arch,
                           const KrBenchOptions *timing, KrBenchStep *steps, size_t n,
                           KrBenchTimes *original, const char **error, KrArena *a, KrDiags *d) {
  KrSide ref = {.label = "reference", .path = s->source, .device = KR_DEVICE_CUDA};
  KrSide *sides = kr_arena_alloc(a, (n + 1) * sizeof *sides);
  KrSide **timed = kr_arena_alloc(a, (n + 2) * sizeof *timed);   /* the original, then each step that agreed */
  size_t *which = kr_arena_alloc(a, (n + 1) * sizeof *which), nt = 0;
  KrPBuf *b = calloc(s->buffers.len + 1, sizeof *b);
  int64_t *sizes = kr_arena_alloc(a, (s->sizes.len + 1) * sizeof *sizes);
  kr_spec_case(s, SIZE_MAX, sizes);
  KrEnv e = {.spec = s, .sizes = sizes};
  KrCubin fill;
  const char *why = b ? reference_ready(&ref, s, arch, &fill, a, d) : "out of memory for buffers";
  if (!why) why = kr__bufs_alloc(s, &e, b, a);
  timed[nt++] = &ref;
  for (size_t k = 0; k < n; k++) {
    sides[k] = (KrSide){.label = "candidate", .device = KR_DEVICE_CUDA};
    steps[k].timed = false;
    if (why) continue;
    steps[k].error = step_ready(&steps[k], &ref, &sides[k], &fill, s, &e, b, run, arch, timing->timeout_s, a, d);
    if (!steps[k].error) which[nt - 1] = k, timed[nt++] = &sides[k];
  }
  KrBenchTimes *times = kr_arena_alloc(a, (nt + 1) * sizeof *times);
  if (!why) why = time_sides(timed, nt, &fill, s, &e, b, timing, times, a, d);
  if (!why) {
    *original = times[0];
    for (size_t i = 1; i < nt; i++) steps[which[i - 1]].timed = true, steps[which[i - 1]].times = times[i];
  }
  *error = why;
  if (b) kr__bufs_free(b, s->buffers.len);
  free(b);
  kr__side_free(&ref);
  for (size_t k = 0; k < n; k++) kr__side_free(&sides[k]);
  return why ? KR_ERR : KR_OK;
}

/* ---- Reports ------------------------------------------------------------------------------------- */

static void times_text(KrBuf *o, const char *label, const KrBenchTimes *t, const KrBenchReport *r) {
  kr_buf_printf(o, "  %-10s median %9.4f ms  min %9.4f  p10-p90 %.4f-%.4f  (%d reps)", label,
                t->median_ms, t->min_ms, t->p10_ms, t->p90_ms, t->reps);
  if (r->bytes > 0) kr_buf_printf(o, "  %7.1f GB/s", r->bytes / (t->median_ms * 1e-3) / 1e9);
  if (r->flops > 0) kr_buf_printf(o, "  %7.2f TFLOP/s", r->flops / (t->median_ms * 1e-3) / 1e12);
  if (r->floor_ms > 0) kr_buf_printf(o, "  %5.1f%% of floor", 100 * r->floor_ms / t->median_ms);
  kr_buf_putc(o, '\n');
}

void kr_bench_text(const KrBenchReport *r, KrBuf *o) {
  kr_buf_printf(o, "bench %s (%s): reference %s, candidate %s\n", r->problem, r->sizes,
                r->reference, r->candidate ? r->candidate : "?");
  if (r->error) {
    kr_buf_printf(o, "FAILED: %s\n", r->error);
    return;
  }
  kr_buf_printf(o, "precision: %s; outputs agree at this size (relative L2 %.3g)\n", r->precision,
                r->check_rel_l2);
  times_text(o, "original", &r->original, r);
  times_text(o, "candidate", &r->rewritten, r);
  kr_buf_printf(o, "speedup %.3fx (median over median); floor %.4f ms\n", r->speedup, r->floor_ms);
}

static void jtimes(KrBuf *o, const KrBenchTimes *t) {
  kr_buf_printf(o, "{\"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"p10_ms\": %.6f, "
                   "\"p90_ms\": %.6f, \"reps\": %d}", t->median_ms, t->min_ms, t->max_ms, t->p10_ms,
                t->p90_ms, t->reps);
}

void kr_bench_json(const KrBenchReport *r, KrBuf *o) {
  kr_buf_puts(o, "{\"problem\": "), kr_buf_json_str(o, r->problem);
  kr_buf_puts(o, ", \"sizes\": "), kr_buf_json_str(o, r->sizes);
  kr_buf_puts(o, ", \"reference\": "), kr_buf_json_str(o, r->reference);
  kr_buf_puts(o, ", \"candidate\": "), kr_buf_json_str(o, r->candidate);
  kr_buf_puts(o, ", \"precision\": "), kr_buf_json_str(o, r->precision);
  kr_buf_puts(o, ", \"arch\": "), kr_buf_json_str(o, r->arch);
  kr_buf_puts(o, ", \"error\": "), kr_buf_json_str(o, r->error);
  kr_buf_printf(o, ", \"check_rel_l2\": %.6g, \"bytes\": %.0f, \"flops\": %.0f, \"floor_ms\": %.6f",
                isfinite(r->check_rel_l2) ? r->check_rel_l2 : -1, r->bytes, r->flops, r->floor_ms);
  if (!r->error) {
    kr_buf_puts(o, ", \"original\": "), jtimes(o, &r->original);
    kr_buf_puts(o, ", \"candidate_times\": "), jtimes(o, &r->rewritten);
    kr_buf_printf(o, ", \"speedup\": %.6f", r->speedup);
  }
  kr_buf_printf(o, ", \"resources\": {\"original\": %s, \"candidate\": %s}}\n",
                r->resources_original ? r->resources_original : "null",
                r->resources_candidate ? r->resources_candidate : "null");
}
