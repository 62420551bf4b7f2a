/* runtime/steps.c: `krewrite bench --steps` (runtime/bench.h, "Every prefix of a recipe"). The
 * recipe is applied once; step i is the text its audit record holds after the i-th applied pass,
 * with the launch changes and precision of the passes up to it. Each step is verified like any
 * candidate (kr_verify on the prefix), then, with a GPU, the original and every verified step are
 * timed side by side in one child (kr_bench_prefixes), so that each step's time can be set
 * against the original's and the previous step's. */
#include "runtime/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recipes/recipe.h"
#include "runtime/prun.h"

/* ---- Running ------------------------------------------------------------------------------------- */

/* The first failing case of a verification, or why it stopped, or the first error it reported. */
static const char *failure_of(const KrVerifyReport *r, const KrDiags *d, KrArena *a) {
  for (size_t i = 0; !r->error && i < r->cases.len; i++) {
    const KrCaseResult *c = &r->cases.data[i];
    if (c->pass) continue;
    bool test = !c->kind || strcmp(c->kind, "test") == 0;
    return kr_arena_printf(a, "%s seed %u%s%s%s: %s", c->sizes, c->seed, test ? "" : " (", test ? "" : c->kind,
                           test ? "" : ")", c->failure ? c->failure : "failed");
  }
  const char *m = kr_diags_first_error(d);
  if (r->error && m) return kr_arena_printf(a, "%s: %s", r->error, m);
  if (r->error) return r->error;
  return m ? kr_arena_strdup(a, m) : "verification failed";
}

/* Verifies step `row` (the run's input after its first row->step passes) against the original. */
static void verify_step(const KrSpec *spec, const KrStepsOptions *o, const KrRecipeRun *run, KrStepRow *row,
                        KrArena *a) {
  KrVerifyOptions vo = {.device = o->device, .arch = o->arch, .run = run, .passes = row->step,
                        .shuffle = true, .timeout_s = 20};
  KrDiags *d = kr_diags_new();
  KrVerifyReport *rep;
  KrStatus st = kr_verify(spec, &vo, a, &rep, d);
  row->passed = rep->passed, row->failed = rep->failed;
  row->precision = rep->precision;
  row->tolerance = rep->tolerance;
  if (st == KR_OK) row->state = KR_STEP_VERIFIED;
  else {
    row->state = rep->build_failed ? KR_STEP_BUILD_FAILED : KR_STEP_FAILED;
    row->failure = failure_of(rep, d, a);
  }
  kr_diags_free(d);
}

/* Times the original and the verified steps on the GPU, one child for all. */
static void time_steps(const KrSpec *spec, const KrStepsOptions *o, const KrRecipeRun *run, KrStepsReport *rep,
                       KrArena *a, KrDiags *d) {
  size_t n = 0;
  KrBenchStep *bs = kr_arena_alloc(a, (rep->steps.len + 1) * sizeof *bs);
  size_t *row_of = kr_arena_alloc(a, (rep->steps.len + 1) * sizeof *row_of);
  for (size_t i = 1; i < rep->steps.len; i++)
    if (rep->steps.data[i].state == KR_STEP_VERIFIED) row_of[n] = i, bs[n++].passes = i;
  KrBenchTimes original;
  const char *why;
  if (kr_bench_prefixes(spec, run, o->arch, &o->timing, bs, n, &original, &why, a, d) != KR_OK) {
    rep->timing_note = kr_arena_printf(a, "not timed: %s", why);
    for (size_t i = 0; i < rep->steps.len; i++)
      if (!rep->steps.data[i].note) rep->steps.data[i].note = rep->timing_note;
    return;
  }
  rep->timed = true;
  rep->steps.data[0].timed = true, rep->steps.data[0].times = original;
  for (size_t k = 0; k < n; k++) {
    KrStepRow *row = &rep->steps.data[row_of[k]];
    row->timed = bs[k].timed;
    row->times = bs[k].times;
    if (!bs[k].timed) row->note = kr_arena_printf(a, "not timed: %s", bs[k].error ? bs[k].error : "?");
  }
}

/* Each timed step against the original and against the timed step before it. */
static void ratios(KrStepsReport *rep) {
  const KrStepRow *orig = &rep->steps.data[0], *prev = NULL;
  for (size_t i = 0; i < rep->steps.len; i++) {
    KrStepRow *row = &rep->steps.data[i];
    if (!row->timed || !(row->times.median_ms > 0)) continue;
    row->vs_original = orig->timed ? orig->times.median_ms / row->times.median_ms : 0;
    if (prev) {
      row->vs_previous = prev->times.median_ms / row->times.median_ms;
      row->previous = prev->step;
      row->regression = row->vs_previous < 1 - KR_STEPS_REGRESSION;
    }
    prev = row;
  }
}

static const char *defines_json(const KrRecipeRun *run, KrArena *a) {
  KrBuf b = {0};
  kr_buf_putc(&b, '{');
  for (size_t i = 0; i < run->defines.len; i++) {
    const KrDefine *df = &run->defines.data[i];
    kr_buf_puts(&b, i ? ", " : "");
    kr_buf_json_str(&b, df->name);
    kr_buf_puts(&b, ": ");
    if (df->value.kind == KR_RAW_STRING) kr_buf_json_str(&b, df->value.text);
    else kr_buf_puts(&b, df->value.text);
  }
  kr_buf_putc(&b, '}');
  const char *s = kr_arena_strndup(a, b.data, b.len);
  kr_buf_free(&b);
  return s;
}

/* One row per step: the original, then each applied pass of the run. */
static void rows(const KrSpec *spec, const KrRecipeRun *run, KrStepsReport *rep, KrArena *a) {
  KrStepRow orig = {.state = KR_STEP_ORIGINAL, .precision = "strict fp32", .tolerance = spec->rtol};
  kr_vec_push(a, &rep->steps, orig);
  for (size_t i = 0; i < run->records.len; i++) {
    const KrPassRecord *pr = &run->records.data[i];
    KrStepRow r = {.step = i + 1, .pass = kr_arena_strdup(a, pr->pass), .kernel = kr_arena_strdup(a, pr->kernel),
                   .given = kr_arena_strdup(a, pr->given_json), .params = kr_arena_strdup(a, pr->params_json)};
    kr_vec_push(a, &rep->steps, r);
  }
  for (size_t i = 0; i < run->skipped.len; i++) kr_vec_push(a, &rep->skipped, kr_arena_strdup(a, run->skipped.data[i]));
  rep->recipe_text = kr_arena_strdup(a, run->recipe_text);
  rep->defines = defines_json(run, a);
}

KrStatus kr_bench_steps(const KrSpec *spec, const KrStepsOptions *o, KrArena *a, KrStepsReport **out, KrDiags *d) {
  KrStepsReport *rep = kr_arena_alloc(a, sizeof *rep);
  *out = rep;
  rep->problem = spec->name;
  rep->source = spec->source;
  rep->recipe = o->run->recipe_path;
  rep->verified_on = o->device;
  rep->no_gpu = o->gpu ? NULL : o->no_gpu;
  int64_t *sizes = kr_arena_alloc(a, (spec->sizes.len + 1) * sizeof *sizes);
  kr_spec_case(spec, SIZE_MAX, sizes);
  rep->sizes = kr__sizes_text(spec, sizes, a);
  const KrRecipeRun *run = o->run;   /* applied once, by the caller (search/candidate.h) */
  kr_sha256_hex(run->input_text, run->input_len, rep->source_sha256);
  rows(spec, run, rep, a);
  for (size_t i = 1; i < rep->steps.len; i++) {
    verify_step(spec, o, run, &rep->steps.data[i], a);
    rep->verified += rep->steps.data[i].state == KR_STEP_VERIFIED;
  }
  for (size_t i = 1; i < rep->steps.len; i++)
    if (rep->steps.data[i].state != KR_STEP_VERIFIED) rep->steps.data[i].note = "not timed: failed verification";
  if (o->gpu) time_steps(spec, o, run, rep, a, d);
  else {
    rep->timing_note = "not timed: no GPU";
    for (size_t i = 0; i < rep->steps.len; i++)
      if (!rep->steps.data[i].note) rep->steps.data[i].note = rep->timing_note;
  }
  ratios(rep);
  for (size_t i = 1; i < rep->steps.len; i++) rep->timed_steps += rep->steps.data[i].timed;
  size_t n = rep->steps.len - 1;
  return rep->verified == n && (!o->gpu || (rep->timed && rep->timed_steps == n)) ? KR_OK : KR_ERR;
}

/* ---- Reports ------------------------------------------------------------------------------------- */

static const char *state_name(KrStepState s) {
  switch (s) {
  case KR_STEP_ORIGINAL: return "original";
  case KR_STEP_VERIFIED: return "verified";
  case KR_STEP_FAILED: return "failed";
  case KR_STEP_BUILD_FAILED: return "build failed";
  }
  return "?";
}

/* "ldg {"params": ["x"]}", with " on KERNEL" when the recipe rewrites more than one kernel. */
static const char *pass_label(const KrStepsReport *r, const KrStepRow *row, KrArena *a) {
  if (!row->pass) return "original";
  bool several = false;
  for (size_t i = 1; i < r->steps.len; i++) several |= strcmp(r->steps.data[i].kernel, r->steps.data[1].kernel) != 0;
  return kr_arena_printf(a, "%s %s%s%s", row->pass, row->given, several ? " on " : "", several ? row->kernel : "");
}

static const char *verification_text(const KrStepRow *row, KrArena *a) {
  switch (row->state) {
  case KR_STEP_ORIGINAL: return "reference";
  case KR_STEP_VERIFIED: return kr_arena_printf(a, "%zu passed", row->passed);
  case KR_STEP_BUILD_FAILED: return "does not build";
  case KR_STEP_FAILED:
    return row->passed + row->failed ? kr_arena_printf(a, "FAILED %zu of %zu", row->failed, row->passed + row->failed)
                                     : "FAILED";
  }
  return "?";
}

void kr_bench_steps_text(const KrStepsReport *r, KrBuf *o) {
  KrArena *a = kr_arena_new();
  kr_buf_printf(o, "bench --steps %s (%s): %s on %s\n", r->problem, r->sizes, r->recipe, r->source);
  if (r->error) {
    kr_buf_printf(o, "FAILED: %s\n", r->error);
    kr_arena_free(a);
    return;
  }
  const char *timing = r->timing_note ? r->timing_note : "not timed";
  if (r->timed)
    timing = kr_arena_printf(a, "timed on %s (%s), each step beside the others in one process",
                             r->gpu ? r->gpu : "the GPU", r->arch ? r->arch : "?");
  else if (r->no_gpu && strncmp(r->no_gpu, "no GPU", 6) == 0)   /* the probe's words say more */
    timing = kr_arena_printf(a, "not timed: %s", r->no_gpu);
  kr_buf_printf(o, "verified on %s; %s\n", r->verified_on == KR_DEVICE_CUDA ? "the GPU" : "the CPU emulator", timing);
  int w = 4;
  for (size_t i = 0; i < r->steps.len; i++) {
    int len = (int)strlen(pass_label(r, &r->steps.data[i], a));
    w = len > w ? len : w;
  }
  kr_buf_printf(o, "step  %-*s  %-16s %10s %12s %12s\n", w, "pass", "verification", "median ms", "vs original", "vs previous");
  for (size_t i = 0; i < r->steps.len; i++) {
    const KrStepRow *row = &r->steps.data[i];
    kr_buf_printf(o, "%4zu  %-*s  %-16s", row->step, w, pass_label(r, row, a), verification_text(row, a));
    if (!row->timed) kr_buf_printf(o, " %s", row->note ? row->note : "not timed");
    else {
      kr_buf_printf(o, " %10.4f %11.3fx", row->times.median_ms, row->vs_original);
      if (row->vs_previous > 0) kr_buf_printf(o, " %11.3fx", row->vs_previous);
      else kr_buf_printf(o, " %12s", "-");
      if (row->regression) kr_buf_printf(o, "  REGRESSION: slower than step %zu", row->previous);
    }
    kr_buf_putc(o, '\n');
    if (row->failure) kr_buf_printf(o, "      %s\n", row->failure);
  }
  for (size_t i = 0; i < r->skipped.len; i++) kr_buf_printf(o, "not a step (k:try did not apply): %s\n", r->skipped.data[i]);
  kr_buf_printf(o, "%zu steps after the original: %zu verified, %zu timed\n", r->steps.len - 1, r->verified,
                r->timed_steps);
  kr_arena_free(a);
}

static void jtimes(KrBuf *o, const KrBenchTimes *t) {
  kr_buf_printf(o, "{\"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"p10_ms\": %.6f, "
                   "\"p90_ms\": %.6f, \"reps\": %d}", t->median_ms, t->min_ms, t->max_ms, t->p10_ms,
                t->p90_ms, t->reps);
}

static void jnum(KrBuf *o, const char *key, double v, bool present) {
  kr_buf_printf(o, ", \"%s\": ", key);
  if (present && isfinite(v)) kr_buf_printf(o, "%.6g", v);
  else kr_buf_puts(o, "null");
}

static void step_json(const KrStepRow *row, KrBuf *o) {
  kr_buf_printf(o, "    {\"step\": %zu, \"pass\": ", row->step);
  kr_buf_json_str(o, row->pass);
  kr_buf_puts(o, ", \"kernel\": "), kr_buf_json_str(o, row->kernel);
  kr_buf_printf(o, ", \"given\": %s, \"params\": %s", row->given ? row->given : "null", row->params ? row->params : "null");
  kr_buf_puts(o, ", \"status\": "), kr_buf_json_str(o, state_name(row->state));
  if (row->state == KR_STEP_ORIGINAL) kr_buf_puts(o, ", \"verification\": null");
  else {
    kr_buf_printf(o, ", \"verification\": {\"passed\": %zu, \"failed\": %zu, \"first_failure\": ", row->passed, row->failed);
    kr_buf_json_str(o, row->failure);
    kr_buf_putc(o, '}');
  }
  kr_buf_puts(o, ", \"precision\": "), kr_buf_json_str(o, row->precision);
  jnum(o, "tolerance", row->tolerance, row->tolerance > 0);
  kr_buf_puts(o, ", \"times\": ");
  if (row->timed) jtimes(o, &row->times);
  else kr_buf_puts(o, "null");
  jnum(o, "vs_original", row->vs_original, row->timed && row->vs_original > 0);
  jnum(o, "vs_previous", row->vs_previous, row->vs_previous > 0);
  if (row->vs_previous > 0) kr_buf_printf(o, ", \"previous_step\": %zu", row->previous);
  else kr_buf_puts(o, ", \"previous_step\": null");
  kr_buf_printf(o, ", \"regression\": %s, \"timing_note\": ", row->regression ? "true" : "false");
  kr_buf_json_str(o, row->note);
  kr_buf_putc(o, '}');
}

void kr_bench_steps_json(const KrStepsReport *r, KrBuf *o) {
  kr_buf_puts(o, "{\"tool\": \"krewrite " KR_VERSION " bench --steps\"");
  kr_buf_puts(o, ",\n \"problem\": "), kr_buf_json_str(o, r->problem);
  kr_buf_puts(o, ",\n \"sizes\": "), kr_buf_json_str(o, r->sizes);
  kr_buf_puts(o, ",\n \"source\": {\"path\": "), kr_buf_json_str(o, r->source);
  kr_buf_puts(o, ", \"sha256\": "), kr_buf_json_str(o, r->source_sha256[0] ? r->source_sha256 : NULL);
  kr_buf_puts(o, "},\n \"recipe\": {\"path\": "), kr_buf_json_str(o, r->recipe);
  kr_buf_puts(o, ", \"text\": "), kr_buf_json_str(o, r->recipe_text);
  kr_buf_printf(o, ", \"defines\": %s}", r->defines ? r->defines : "{}");
  kr_buf_printf(o, ",\n \"verified_on\": \"%s\"", r->verified_on == KR_DEVICE_CUDA ? "cuda" : "cpu");
  kr_buf_puts(o, ",\n \"gpu\": "), kr_buf_json_str(o, r->gpu);
  kr_buf_puts(o, ", \"arch\": "), kr_buf_json_str(o, r->arch);
  kr_buf_printf(o, ", \"timed\": %s, \"timing_note\": ", r->timed ? "true" : "false");
  kr_buf_json_str(o, r->timing_note);
  kr_buf_puts(o, ", \"no_gpu\": "), kr_buf_json_str(o, r->no_gpu);
  kr_buf_printf(o, ",\n \"regression_threshold\": %g", KR_STEPS_REGRESSION);
  kr_buf_puts(o, ",\n \"error\": "), kr_buf_json_str(o, r->error);
  kr_buf_puts(o, ",\n \"steps\": [");
  for (size_t i = 0; i < r->steps.len; i++) {
    kr_buf_puts(o, i ? ",\n" : "\n");
    step_json(&r->steps.data[i], o);
  }
  kr_buf_puts(o, "],\n \"skipped\": [");
  for (size_t i = 0; i < r->skipped.len; i++) {
    kr_buf_puts(o, i ? ", " : "");
    kr_buf_json_str(o, r->skipped.data[i]);
  }
  kr_buf_printf(o, "],\n \"verified\": %zu, \"timed_steps\": %zu\n}\n", r->verified, r->timed_steps);
}
