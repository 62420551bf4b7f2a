/* runtime/verify.c: the verification protocol of verify.h, on the CPU emulator or the GPU.
 *
 * Per case (test sizes x seeds): allocate the buffers, fill inputs from the seed, poison outputs,
 * run the reference's launches and keep its outputs; refill, poison, run the candidate's launches
 * (with a shuffled thread order on the emulator when asked) and compare. A case that fails only
 * with the shuffled order is reported as a suspected race. */
#include "runtime/verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fill.h"
#include "runtime/prun.h"

/* ---- Comparing ----------------------------------------------------------------------------------- */

static const char *check_inputs(const KrPBuf *b, size_t n, const char *who, KrArena *a) {
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
static const char *compare(const KrPBuf *b, double rtol, double atol, KrBufferCheck *c, KrArena *a) {
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
  KrSide *ref, *cand;
  double rtol;
  bool lowered;             /* a precision-lowering pass was applied */
  KrArena *a;
} Run;

/* The tolerance for one output buffer. When a lowering pass changed the arithmetic by a relative
 * δ (its declared tolerance) and the output is stored in a 16-bit format whose unit in the last
 * place is u, a value flips to the neighbouring 16-bit number when it lay within δ of a rounding
 * boundary: a fraction of about 2δ/u of the elements, each off by u, which gives a relative L2
 * error of about sqrt(2δu). That, not δ, is what the lowered kernel can be held to; strict
 * (unlowered) candidates keep the spec's tolerance for every dtype. */
static double buffer_rtol(const Run *r, KrDtype t) {
  double u = t == KR_DT_BF16 ? 0x1p-7 : t == KR_DT_F16 ? 0x1p-10 : 0;
  if (!r->lowered || u == 0) return r->rtol;
  return fmax(r->rtol, sqrt(2 * r->rtol * u));
}


/* Runs the candidate once and compares; returns the failure or NULL. */
static const char *candidate_pass(Run *r, KrEnv *e, KrPBuf *b, uint32_t seed, bool shuffle, KrCaseResult *cr) {
  const KrSpec *s = r->spec;
  const char *why = kr__bufs_prepare(s, e, b, seed, r->a);
  if (!why) why = kr__run_side(r->cand, s, e, b, shuffle, seed, r->opt->timeout_s, r->a);
  if (!why) why = check_inputs(b, s->buffers.len, "candidate", r->a);
  cr->checks.len = 0;
  for (size_t i = 0; !why && i < s->buffers.len; i++) {
    if (b[i].spec->role != KR_ROLE_OUTPUT && b[i].spec->role != KR_ROLE_INOUT) continue;
    KrBufferCheck c = {0};
    why = compare(&b[i], buffer_rtol(r, b[i].spec->dtype), s->atol, &c, r->a);
    kr_vec_push(r->a, &cr->checks, c);
  }
  return why;
}

static void run_case(Run *r, size_t ci, uint32_t seed, KrCaseResult *cr) {
  const KrSpec *s = r->spec;
  int64_t *sizes = kr_arena_alloc(r->a, (s->sizes.len + 1) * sizeof *sizes);
  kr_spec_case(s, ci, sizes);
  *cr = (KrCaseResult){.index = ci, .seed = seed, .sizes = kr__sizes_text(s, sizes, r->a)};
  KrEnv e = {.spec = s, .sizes = sizes};
  KrPBuf *b = calloc(s->buffers.len, sizeof *b);
  const char *why = kr__bufs_alloc(s, &e, b, r->a);
  if (!why) why = kr__bufs_prepare(s, &e, b, seed, r->a);
  if (!why) why = kr__run_side(r->ref, s, &e, b, false, seed, r->opt->timeout_s, r->a);
  if (!why) why = check_inputs(b, s->buffers.len, "reference", r->a);
  for (size_t i = 0; !why && i < s->buffers.len; i++) memcpy(b[i].ref, b[i].dev, b[i].bytes);
  if (!why) {
    bool shuffle = r->opt->shuffle && r->opt->device == KR_DEVICE_CPU; /* the GPU has its own order */
    why = candidate_pass(r, &e, b, seed, shuffle, cr);
    KrCaseResult in_order = *cr; /* the rerun's checks must not replace the failing run's */
    memset(&in_order.checks, 0, sizeof in_order.checks);
    if (why && shuffle && !candidate_pass(r, &e, b, seed, false, &in_order))
      why = kr_arena_printf(r->a, "race suspected: the candidate passes with threads in order but "
                                  "fails with a shuffled order (seed %u): %s", seed, why);
  }
  kr__bufs_free(b, s->buffers.len);
  free(b);
  cr->pass = why == NULL;
  cr->failure = why;
}

/* ---- The compile report ------------------------------------------------------------------------- */

/* "what: the first error" (or `what` alone), for a report that could not be made. */
static const char *why_not(const char *what, const KrDiags *d, KrArena *a) {
  const char *m = kr_diags_first_error(d);
  return m ? kr_arena_printf(a, "%s: %s", what, m) : what;
}

/* The candidate's ptxas report: from its cubin on the GPU, from a cubin compiled here (and
 * cached) on the emulator. `built`: the candidate's side built for the device. */
static void compile_report(const KrVerifyOptions *opt, const KrSide *cand, bool built, KrArena *a,
                           KrDiags *d, const char **json, const char **line) {
  const KrCubin *cubin = built && opt->device == KR_DEVICE_CUDA ? &cand->cubin : NULL;
  const char *why = NULL;
  KrCubin own;
  if (opt->device == KR_DEVICE_CUDA && !built) {
    why = why_not("nvcc refused the candidate", d, a);
  } else if (!cubin) {
    KrDiags *nd = kr_diags_new();
    const char *nvcc;
    KrNvccOptions no = {.arch = opt->arch, .timeout_s = 300};
    if (kr_nvcc_find(&nvcc, a, nd) != KR_OK) why = why_not("no resource report: nvcc not found", nd, a);
    else if (kr_nvcc_compile(cand->path, cand->text, cand->len, &no, a, &own, nd) != KR_OK)
      why = why_not("nvcc refused the candidate", nd, a);
    else cubin = &own;
    kr_diags_free(nd);
  }
  KrBuf b = {0};
  if (why) {
    kr_buf_puts(&b, "{\"error\": ");
    kr_buf_json_str(&b, why);
    kr_buf_puts(&b, "}");
    *json = kr_arena_strndup(a, b.data, b.len);
    *line = kr_arena_printf(a, "no ptxas report (%s)", why);
  } else {
    kr_cubin_resources_json(cubin, &b);
    *json = kr_arena_strndup(a, b.data, b.len);
    b.len = 0;
    kr_cubin_resources_text(cubin, &b);   /* a line per kernel, joined here by "; " */
    KrBuf l = {0};
    kr_buf_printf(&l, "ptxas %s: ", cubin->arch ? cubin->arch : "?");
    for (size_t i = 0; i < b.len; i++) {
      if (b.data[i] != '\n') kr_buf_putc(&l, b.data[i]);
      else if (i + 1 < b.len) kr_buf_puts(&l, "; ");
    }
    *line = kr_arena_strndup(a, l.data, l.len);
    kr_buf_free(&l);
  }
  kr_buf_free(&b);
}

KrStatus kr_verify_prepare(const KrSpec *spec, const KrVerifyOptions *opt, KrArena *a,
                           const char **compile, const char **resources, KrDiags *d) {
  KrSide ref = {.label = "reference", .path = spec->source, .device = opt->device};
  KrSide cand = {.label = "candidate", .device = opt->device};
  KrCandidateInfo info;
  KrStatus st = KR_ERR;
  char *t;
  const char *json = NULL, *line = NULL;
  if (kr_file_read(spec->source, a, &t, &ref.len, d) != KR_OK) goto done;
  ref.text = t;
  if (kr__candidate_text(spec, opt->recipe, opt->candidate, opt->recipe_opts, &ref, &cand, &info,
                         a, d) != KR_OK)
    goto done;
  st = kr__side_build(&cand, spec, opt->cache_dir, opt->arch, a, d);
  if (opt->compile_report) compile_report(opt, &cand, st == KR_OK, a, d, &json, &line);
done:
  if (compile) *compile = json;
  if (resources) *resources = line;
  kr__side_free(&ref);
  kr__side_free(&cand);
  return st;
}

/* ---- Verification ---------------------------------------------------------------------------------- */

KrStatus kr_verify(const KrSpec *spec, const KrVerifyOptions *opt, KrArena *a,
                   KrVerifyReport **out, KrDiags *d) {
  KrVerifyReport *rep = kr_arena_alloc(a, sizeof *rep);
  *out = rep;
  rep->problem = spec->name;
  rep->reference = spec->source;
  rep->precision = "strict fp32";
  KrSide ref = {.label = "reference", .path = spec->source, .device = opt->device};
  KrSide cand = {.label = "candidate", .device = opt->device};
  Run r = {.spec = spec, .opt = opt, .ref = &ref, .cand = &cand, .rtol = spec->rtol, .a = a};
  const char *where = opt->device == KR_DEVICE_CUDA ? "the GPU" : "the emulator";
  char *t;
  KrStatus st = KR_ERR;
  KrCandidateInfo info;
  if (kr_file_read(spec->source, a, &t, &ref.len, d) != KR_OK) goto done;
  ref.text = t;
  if (kr__candidate_text(spec, opt->recipe, opt->candidate, opt->recipe_opts, &ref, &cand, &info,
                         a, d) != KR_OK)
    goto done;
  rep->candidate = info.label;
  rep->precision = info.precision;
  r.rtol = info.rtol;
  r.lowered = strncmp(info.precision, "lowered", 7) == 0;
  for (size_t i = 0; r.lowered && i < spec->buffers.len; i++) {
    KrDtype dt = spec->buffers.data[i].dtype;
    if (spec->buffers.data[i].role == KR_ROLE_INPUT || buffer_rtol(&r, dt) == r.rtol) continue;
    rep->precision = kr_arena_printf(a, "%s; %s output '%s' held to %.2g (rounding to 16 bits)",
                                     rep->precision, kr_dtype_name(dt), spec->buffers.data[i].name,
                                     buffer_rtol(&r, dt));
  }
  if (kr__side_build(&ref, spec, opt->cache_dir, opt->arch, a, d) != KR_OK) {
    rep->error = kr_arena_printf(a, "the reference does not build for %s", where);
    goto done;
  }
  bool built = kr__side_build(&cand, spec, opt->cache_dir, opt->arch, a, d) == KR_OK;
  if (opt->compile_report) compile_report(opt, &cand, built, a, d, &rep->compile, &rep->resources);
  if (!built) {
    rep->error = kr_arena_printf(a, "the candidate does not build for %s", where);
    rep->build_failed = true;
    goto done;
  }
  rep->tolerance = r.rtol;
  uint32_t seeds = opt->seeds ? opt->seeds : spec->seeds;
  size_t ncases = kr_spec_ncases(spec);
  if (opt->max_cases && opt->max_cases < ncases) ncases = opt->max_cases;
  for (size_t c = 0; c < ncases; c++)
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
  kr__side_free(&ref);
  kr__side_free(&cand);
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

void kr_verify_json(const KrVerifyReport *r, KrBuf *o) {
  kr_buf_puts(o, "{\"problem\": "), kr_buf_json_str(o, r->problem);
  kr_buf_puts(o, ", \"reference\": "), kr_buf_json_str(o, r->reference);
  kr_buf_puts(o, ", \"candidate\": "), kr_buf_json_str(o, r->candidate);
  kr_buf_puts(o, ", \"precision\": "), kr_buf_json_str(o, r->precision);
  kr_buf_puts(o, ", \"tolerance\": "), kr_buf_json_num(o, r->tolerance);
  kr_buf_puts(o, ", \"error\": "), kr_buf_json_str(o, r->error);
  kr_buf_printf(o, ", \"passed\": %zu, \"failed\": %zu, \"cases\": [", r->passed, r->failed);
  for (size_t i = 0; i < r->cases.len; i++) {
    const KrCaseResult *c = &r->cases.data[i];
    kr_buf_printf(o, "%s\n  {\"case\": %zu, \"seed\": %u, \"sizes\": ", i ? "," : "", c->index, c->seed);
    kr_buf_json_str(o, c->sizes);
    kr_buf_printf(o, ", \"pass\": %s, \"failure\": ", c->pass ? "true" : "false");
    kr_buf_json_str(o, c->failure);
    kr_buf_puts(o, ", \"buffers\": [");
    for (size_t j = 0; j < c->checks.len; j++) {
      const KrBufferCheck *k = &c->checks.data[j];
      kr_buf_printf(o, "%s{\"name\": ", j ? ", " : "");
      kr_buf_json_str(o, k->buffer);
      kr_buf_puts(o, ", \"rel_l2\": "), kr_buf_json_num(o, k->rel_l2);
      kr_buf_puts(o, ", \"max_abs\": "), kr_buf_json_num(o, k->max_abs);
      kr_buf_puts(o, ", \"max_rel\": "), kr_buf_json_num(o, k->max_rel);
      kr_buf_printf(o, ", \"mismatches\": %zu}", k->mismatches);
    }
    kr_buf_puts(o, "]}");
  }
  kr_buf_puts(o, "]}\n");
}
