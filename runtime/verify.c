/* runtime/verify.c: the verification protocol of verify.h, on the CPU emulator or the GPU
 * (docs/problems.md, "How verify checks a candidate").
 *
 * Both sides are built (the candidate in a child, at the same time), then a plan of cases is
 * made and checked against the memory available before anything is allocated: the test sizes
 * with their seeds, a sample of blocks at the benchmark size (emulator), sizes beyond the test
 * list, the benchmark size in full (GPU), the last three within a time budget. Per case each side
 * runs twice in one process and one loaded module, the second time on fresh inputs: inputs
 * filled from the seed, outputs poisoned, the reference's launches, its outputs kept, the same
 * inputs for the candidate (shuffled thread order on the emulator when asked), then compared. A
 * case that fails only with the shuffled order is reported as a suspected race. The reference
 * failing stops verification; a candidate that hangs skips the rest. On the GPU one child
 * (cuda_server.c) runs every case, with the buffers made, restored and checked on the device by
 * the fill module, and only the outputs copied back to be compared. */
#include "runtime/verify.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "runtime/fill.h"
#include "runtime/fill_module.h"
#include "runtime/prun.h"

/* ---- Comparing ----------------------------------------------------------------------------------- */

static const char *modified(const KrPBuf *b, size_t k, const char *who, KrArena *a) {
  return kr_arena_printf(a, "the %s modified input buffer '%s' (element %zu); declare it inout "
                            "if that is intended", who, b->spec->name, k);
}

/* The first element of b that differs from its snapshot. */
static size_t first_changed(const KrPBuf *b) {
  size_t es = kr_dtype_size(b->spec->dtype), k = 0;
  while (k < b->count && memcmp((char *)b->dev + k * es, (char *)b->snapshot + k * es, es) == 0) k++;
  return k;
}

static const char *check_inputs(const KrPBuf *b, size_t n, const char *who, KrArena *a) {
  for (size_t i = 0; i < n; i++) {
    if (b[i].spec->role != KR_ROLE_INPUT) continue;
    if (memcmp(b[i].dev, b[i].snapshot, b[i].bytes) == 0) continue;
    return modified(&b[i], first_changed(&b[i]), who, a);
  }
  return NULL;
}

/* What one chunk of a comparison found: the sums and maxima of the elements before its first
 * bad element (NaN on either side, or an infinity on one side only), that element, and for
 * integers the mismatches and the first of them. */
typedef struct Part {
  double num, den, max_abs, max_rel;
  size_t mismatches, first_mismatch, bad;
} Part;

typedef struct CompareJob {
  const KrPBuf *b;
  bool ints;
  Part *parts;
} CompareJob;

static void compare_chunk(void *ctx, size_t k, size_t from, size_t to) {
  const CompareJob *j = ctx;
  KrDtype t = j->b->spec->dtype;
  Part *p = &j->parts[k];
  *p = (Part){.first_mismatch = SIZE_MAX, .bad = SIZE_MAX};
  for (size_t i = from; i < to; i++) {
    double r = kr_elem_get(j->b->ref, t, i), o = kr_elem_get(j->b->dev, t, i);
    if (j->ints) {
      if (r != o && p->mismatches++ == 0) p->first_mismatch = i;
      continue;
    }
    if (isnan(r) || isnan(o) || ((isinf(r) || isinf(o)) && r != o)) {
      p->bad = i;
      return;
    }
    if (isinf(r)) continue;
    double d = fabs(o - r);
    p->num += d * d, p->den += r * r;
    if (d > p->max_abs) p->max_abs = d;
    if (r != 0 && d / fabs(r) > p->max_rel) p->max_rel = d / fabs(r);
  }
}

/* Compares one output buffer (b->ref the reference's, b->dev the candidate's), in chunks on
 * several threads; returns a failure reason or NULL and fills `c`. The figures of a failing
 * buffer cover the elements before the one that failed, as a sequential pass would. */
static const char *compare(const KrPBuf *b, double rtol, double atol, KrBufferCheck *c, KrArena *a) {
  KrDtype t = b->spec->dtype;
  bool ints = t == KR_DT_I32 || t == KR_DT_I64;
  size_t nparts = kr_fill_nchunks(b->count);
  CompareJob j = {b, ints, calloc(nparts + 1, sizeof(Part))};
  if (!j.parts) return "out of memory comparing the outputs";
  kr_fill_chunks(b->count, compare_chunk, &j);
  double num = 0, den = 0;
  size_t bad = SIZE_MAX, first_mismatch = SIZE_MAX;
  c->buffer = b->spec->name;
  for (size_t k = 0; k < nparts && bad == SIZE_MAX; k++) {
    const Part *p = &j.parts[k];
    num += p->num, den += p->den;
    c->max_abs = fmax(c->max_abs, p->max_abs);
    c->max_rel = fmax(c->max_rel, p->max_rel);
    c->mismatches += p->mismatches;
    if (first_mismatch == SIZE_MAX) first_mismatch = p->first_mismatch;
    bad = p->bad;
  }
  free(j.parts);
  if (ints) {
    if (!c->mismatches) return NULL;
    c->max_abs = fabs(kr_elem_get(b->dev, t, first_mismatch) - kr_elem_get(b->ref, t, first_mismatch));
    return kr_arena_printf(a, "%zu elements of '%s' differ from the reference", c->mismatches, c->buffer);
  }
  if (bad != SIZE_MAX) {
    double r = kr_elem_get(b->ref, t, bad), o = kr_elem_get(b->dev, t, bad);
    if (isnan(r))
      return kr_arena_printf(a, "the reference left element %zu of '%s' unwritten or NaN; is the "
                                "count in the spec too large?", bad, c->buffer);
    if (isnan(o))
      return kr_arena_printf(a, "element %zu of '%s' is NaN: not written by the candidate, or "
                                "computed as NaN (reference %.9g)", bad, c->buffer, r);
    return kr_arena_printf(a, "element %zu of '%s' is %g, reference %g", bad, c->buffer, o, r);
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
  bool reassociated;        /* an applied pass reassociates a sum */
  const KrCandidateInfo *info;  /* the candidate's passes' wide accesses: its offset cases */
  KrCudaServer *gpu;        /* on the GPU: the one child that runs every case */
  KrCubin fill;             /* on the GPU: the fill module (runtime/fill_module.h) */
  KrEmuRaceCheck races;     /* emulator: the race check of both sides' runs */
  const char *warning;      /* the candidate's first warning (printf cut), for the report's notes */
  double fill_s;            /* time spent filling inputs, and the bytes filled: the rate */
  uint64_t fill_bytes;      /* predicts the benchmark-size check's cost */
  double t_fill, t_copy, t_compare;  /* the report's breakdown (KrVerifyReport) */
  KrArena *a;
} Run;

/* A case to run: a test case with a seed, a size beyond the test list, or the benchmark size. */
typedef struct Planned {
  const char *kind;
  size_t index;
  uint32_t seed;
  int64_t *sizes;
  uint64_t bytes;           /* the buffers of one run */
  uint64_t out_bytes;       /* of them, the outputs and inout buffers (the GPU's pool holds the
                             * reference's copy of these too) */
  int runs;                 /* runs per side: two (the second on fresh inputs), one at the
                             * benchmark size on the GPU, whose state the other cases check */
  double cost;              /* bytes plus the spec's flops there: what run time is predicted from */
  size_t shift;             /* an offset case: the buffer passed one element off (kr__bufs_alloc_shifted);
                             * SIZE_MAX otherwise */
  const char *offset, *offset_why;  /* an offset case: as KrCaseResult's */
} Planned;

typedef KrVec(Planned) Plan;

/* The tolerance for one output buffer. When a lowering pass changed the arithmetic by a relative
 * δ (its declared tolerance) and the output is stored in a 16-bit format whose unit in the last
 * place is u, a value flips to the neighbouring 16-bit number when it lay within δ of a rounding
 * boundary: a fraction of about 2δ/u of the elements, each off by u, which gives a relative L2
 * error of about sqrt(2δu). That, not δ, is what the lowered kernel can be held to. A pass that
 * reassociates a sum (block_reduce, split_k, …) moves the fp32 values by up to the strict
 * tolerance itself, δ = rtol, so a 16-bit output is held the same way; other strict candidates
 * (the same arithmetic in the same order) keep the spec's tolerance for every dtype. */
static double buffer_rtol(const Run *r, KrDtype t) { return kr__output_rtol(r->rtol, r->lowered || r->reassociated, t); }


/* ---- One case: two runs per side in one process ----------------------------------------------------
 * Each side runs twice in the same loaded module: on the case's inputs (its seed), then on fresh
 * inputs (seed + KR_VERIFY_FRESH_SEED). A kernel that keeps results in a __device__ variable
 * between calls passes the first run and fails the second, as it would in a program that calls it
 * twice on a GPU. */

enum { NRUNS = 2 };
#define KR_VERIFY_FRESH_SEED 1000u

typedef struct CaseSets {
  KrPBuf *b[NRUNS];
  uint32_t seed[NRUNS];
  size_t nb;
  int n;                    /* runs: NRUNS, or 1 at the benchmark size on the GPU */
} CaseSets;

static const char *sets_prepare(const KrSpec *s, KrEnv *e, CaseSets *cs, KrArena *a) {
  const char *why = NULL;
  for (int k = 0; !why && k < cs->n; k++) why = kr__bufs_prepare(s, e, cs->b[k], cs->seed[k], a);
  return why;
}

/* The buffers as kr__bufs_prepare left them for the same seed, without drawing the random
 * numbers again: inputs (and temps) from their snapshot, outputs poisoned. */
static void restore(KrPBuf *b, size_t nb) {
  for (size_t i = 0; i < nb; i++) {
    if (b[i].spec->role == KR_ROLE_OUTPUT) kr_fill_poison(b[i].dev, b[i].spec->dtype, b[i].count);
    else memcpy(b[i].dev, b[i].snapshot, b[i].bytes);
  }
}

static const char *sets_inputs(const CaseSets *cs, const char *who, KrArena *a) {
  for (int k = 0; k < cs->n; k++) {
    const char *why = check_inputs(cs->b[k], cs->nb, who, a);
    if (why) return k ? kr_arena_printf(a, "on the second run (fresh inputs): %s", why) : why;
  }
  return NULL;
}

/* ---- The buffers on the GPU -------------------------------------------------------------------------
 * With the GPU child, a case's buffers live on the device (cuda.h, "Buffers kept on the device"):
 * the fill module fills and poisons them there with the host's values, restores them between the
 * reference and the candidate by filling them again, and checks there that inputs still hold
 * them; only the outputs come back, for the comparison on the host. The CSR structures are
 * filled on the host and uploaded, and checked by copying them back (they are small). */

enum { FILL_MODULE = 2 };   /* the server's modules: reference, candidate, fill */

static const char *gpu_data(Run *r, KrCudaData *ops, size_t n, double *clock) {
  double t0 = kr_now_s();
  KrDiags *d = kr_diags_new();
  const char *why = NULL;
  if (kr_cuda_server_data(r->gpu, FILL_MODULE, ops, n, d) != KR_OK) {
    const char *m = kr_diags_first_error(d);
    why = kr_arena_printf(r->a, "on the GPU: %s", m ? m : "a data request failed");
  }
  kr_diags_free(d);
  *clock += kr_now_s() - t0;
  return why;
}

/* The sets as kr__bufs_prepare leaves them, made on the device; the CSR structures from their
 * snapshots (a check may have copied the device's contents over `dev`). */
static const char *gpu_restore(Run *r, CaseSets *cs) {
  KrCudaData *ops = kr_arena_alloc(r->a, ((size_t)cs->n * cs->nb + 1) * sizeof *ops);
  size_t n = 0;
  for (int k = 0; k < cs->n; k++) {
    for (size_t i = 0; i < cs->nb; i++) {
      KrPBuf *b = &cs->b[k][i];
      if (b->spec->role != KR_ROLE_OUTPUT && !kr_fill_generated(b->spec->fill.kind))
        memcpy(b->dev, b->snapshot, b->bytes);
    }
    n += kr__bufs_device_ops(cs->b[k], cs->nb, cs->seed[k], ops + n);
  }
  return gpu_data(r, ops, n, &r->t_fill);
}

static const char *gpu_prepare(Run *r, KrEnv *e, CaseSets *cs) {
  double t0 = kr_now_s();
  const char *why = NULL;
  for (int k = 0; !why && k < cs->n; k++) why = kr__bufs_prepare_host_part(r->spec, e, cs->b[k], cs->seed[k], r->a);
  r->t_fill += kr_now_s() - t0;
  return why ? why : gpu_restore(r, cs);
}

/* sets_inputs on the device: generated inputs are checked by the fill module, the others copied
 * back and compared with their snapshots. */
static const char *gpu_inputs(Run *r, CaseSets *cs, const char *who) {
  KrCudaData *ops = kr_arena_alloc(r->a, ((size_t)cs->n * cs->nb + 1) * sizeof *ops);
  size_t n = 0;
  for (int k = 0; k < cs->n; k++)
    for (size_t i = 0; i < cs->nb; i++) {
      KrPBuf *b = &cs->b[k][i];
      if (b->spec->role != KR_ROLE_INPUT) continue;
      if (kr_fill_generated(b->spec->fill.kind)) ops[n++] = kr__buf_fill_op(b, cs->seed[k], i, KR_CUDA_DATA_CHECK);
      else ops[n++] = (KrCudaData){.kind = KR_CUDA_DATA_DOWNLOAD, .name = b->spec->name, .host = b->dev, .bytes = b->bytes};
    }
  const char *why = gpu_data(r, ops, n, &r->t_compare);
  double t0 = kr_now_s();
  n = 0;
  for (int k = 0; !why && k < cs->n; k++)
    for (size_t i = 0; !why && i < cs->nb; i++) {
      KrPBuf *b = &cs->b[k][i];
      if (b->spec->role != KR_ROLE_INPUT) continue;
      const KrCudaData *o = &ops[n++];
      if (o->kind == KR_CUDA_DATA_CHECK && o->first_diff != UINT64_MAX) why = modified(b, (size_t)o->first_diff, who, r->a);
      else if (o->kind == KR_CUDA_DATA_DOWNLOAD && memcmp(b->dev, b->snapshot, b->bytes) != 0)
        why = modified(b, first_changed(b), who, r->a);
      if (why && k) why = kr_arena_printf(r->a, "on the second run (fresh inputs): %s", why);
    }
  r->t_compare += kr_now_s() - t0;
  return why;
}

/* Copies the outputs (and inout buffers) back: into `ref` for the reference, `dev` otherwise. */
static const char *gpu_outputs(Run *r, CaseSets *cs, bool into_ref) {
  KrCudaData *ops = kr_arena_alloc(r->a, ((size_t)cs->n * cs->nb + 1) * sizeof *ops);
  size_t n = 0;
  for (int k = 0; k < cs->n; k++)
    for (size_t i = 0; i < cs->nb; i++) {
      KrPBuf *b = &cs->b[k][i];
      if (b->spec->role == KR_ROLE_OUTPUT || b->spec->role == KR_ROLE_INOUT)
        ops[n++] = (KrCudaData){.kind = KR_CUDA_DATA_DOWNLOAD, .name = b->spec->name, .host = b->dev,
                                .bytes = b->bytes, .to = into_ref ? b->ref : NULL};
    }
  return gpu_data(r, ops, n, &r->t_copy);
}

/* The checks of inputs after a side ran, on the host or the device. */
static const char *inputs_after(Run *r, CaseSets *cs, const char *who) {
  if (r->gpu) return gpu_inputs(r, cs, who);
  double t0 = kr_now_s();
  const char *why = sets_inputs(cs, who, r->a);
  r->t_compare += kr_now_s() - t0;
  return why;
}

/* Keeps the worse of two runs' figures for one buffer. */
static void worst(KrBufferCheck *into, const KrBufferCheck *c) {
  into->rel_l2 = fmax(into->rel_l2, c->rel_l2);
  into->max_abs = fmax(into->max_abs, c->max_abs);
  into->max_rel = fmax(into->max_rel, c->max_rel);
  if (c->mismatches > into->mismatches) into->mismatches = c->mismatches;
}

/* Runs the candidate's two runs and compares both; returns the failure or NULL. */
static const char *candidate_pass(Run *r, KrEnv *e, CaseSets *cs, bool shuffle, bool *hung,
                                  KrCaseResult *cr) {
  const KrSpec *s = r->spec;
  const KrPBuf *sets[NRUNS] = {cs->b[0], cs->b[1]};
  KrRunHow how = {.shuffle = shuffle, .seed = cs->seed[0], .timeout = r->opt->timeout_s, .races = r->races,
                  .server = r->gpu, .module = 1, .resident = r->gpu != NULL, .fill_module = FILL_MODULE,
                  .hung = hung,
                  .warning = &r->warning};
  const char *why = NULL;
  double t0 = kr_now_s();
  if (r->gpu) why = gpu_restore(r, cs);   /* the reference's inputs */
  else for (int k = 0; k < cs->n; k++) restore(cs->b[k], cs->nb);
  if (!r->gpu) r->t_fill += kr_now_s() - t0;
  if (!why) why = kr__run_rounds(r->cand, s, e, sets, (size_t)cs->n, &how, r->a);
  if (!why) why = inputs_after(r, cs, "candidate");
  if (!why && r->gpu) why = gpu_outputs(r, cs, false);
  cr->checks.len = 0;
  t0 = kr_now_s();
  for (size_t i = 0; !why && i < s->buffers.len; i++) {
    if (cs->b[0][i].spec->role != KR_ROLE_OUTPUT && cs->b[0][i].spec->role != KR_ROLE_INOUT) continue;
    KrBufferCheck c = {0};
    double tol = buffer_rtol(r, cs->b[0][i].spec->dtype);
    why = compare(&cs->b[0][i], tol, s->atol, &c, r->a);
    if (!why && cs->n > 1) {
      KrBufferCheck c2 = {0};
      why = compare(&cs->b[1][i], tol, s->atol, &c2, r->a);
      worst(&c, &c2);
      if (why)
        why = kr_arena_printf(r->a, "on the second run in the same loaded module (fresh inputs, "
                                    "seed %u; the first run passed), so the kernel keeps state "
                                    "between calls or depends on what memory held: %s",
                              cs->seed[1], why);
    }
    kr_vec_push(r->a, &cr->checks, c);
  }
  r->t_compare += kr_now_s() - t0;
  return why;
}

typedef enum { CASE_RAN, CASE_REF_FAILED, CASE_HUNG } CaseEnd;

static void sets_free(CaseSets *cs) {
  for (int k = 0; k < cs->n; k++) {
    if (cs->b[k]) kr__bufs_free(cs->b[k], cs->nb);
    free(cs->b[k]);
  }
}

/* Runs one case; *ref_why holds the reference's failure when it ends CASE_REF_FAILED. */
static CaseEnd run_case(Run *r, const Planned *p, KrCaseResult *cr, const char **ref_why) {
  const KrSpec *s = r->spec;
  *cr = (KrCaseResult){.index = p->index, .seed = p->seed, .sizes = kr__sizes_text(s, p->sizes, r->a),
                       .kind = p->kind, .offset = p->offset, .offset_why = p->offset_why};
  KrEnv e = {.spec = s, .sizes = p->sizes};
  CaseSets cs = {.seed = {p->seed, p->seed + KR_VERIFY_FRESH_SEED}, .nb = s->buffers.len,
                 .n = p->runs};
  if (r->gpu) kr_cuda_server_reset(r->gpu);
  const char *why = NULL;
  for (int k = 0; !why && k < cs.n; k++) {
    cs.b[k] = calloc(s->buffers.len + 1, sizeof *cs.b[k]);
    why = cs.b[k] ? kr__bufs_alloc_shifted(s, &e, cs.b[k], r->gpu, p->shift, r->a) : "out of memory for buffers";
  }
  bool hung = false;
  const KrPBuf *sets[NRUNS] = {cs.b[0], cs.b[1]};
  KrRunHow how = {.seed = p->seed, .timeout = r->opt->timeout_s, .server = r->gpu, .module = 0,
                  .resident = r->gpu != NULL, .fill_module = FILL_MODULE, .hung = &hung};
  double t_fill = kr_now_s();
  if (!why) why = r->gpu ? gpu_prepare(r, &e, &cs) : sets_prepare(s, &e, &cs, r->a);
  r->fill_s += kr_now_s() - t_fill;
  if (!r->gpu) r->t_fill += kr_now_s() - t_fill;
  r->fill_bytes += (uint64_t)cs.n * p->bytes;
  if (!why) why = kr__run_rounds(r->ref, s, &e, sets, (size_t)cs.n, &how, r->a);
  if (!why) why = inputs_after(r, &cs, "reference");
  if (!why && r->gpu) why = gpu_outputs(r, &cs, true);
  if (why) {
    sets_free(&cs);
    *ref_why = why;
    return CASE_REF_FAILED;
  }
  double t_copy = kr_now_s();
  for (int k = 0; !r->gpu && k < cs.n; k++)
    for (size_t i = 0; i < s->buffers.len; i++) memcpy(cs.b[k][i].ref, cs.b[k][i].dev, cs.b[k][i].bytes);
  if (!r->gpu) r->t_copy += kr_now_s() - t_copy;
  bool shuffle = r->opt->shuffle && r->opt->device == KR_DEVICE_CPU; /* the GPU has its own order */
  why = candidate_pass(r, &e, &cs, shuffle, &hung, cr);
  KrCaseResult in_order = *cr; /* the rerun's checks must not replace the failing run's */
  memset(&in_order.checks, 0, sizeof in_order.checks);
  if (why && shuffle && !hung && !candidate_pass(r, &e, &cs, false, &hung, &in_order))
    why = kr_arena_printf(r->a, "race suspected: the candidate passes with threads in order but "
                                "fails with a shuffled order (seed %u): %s", p->seed, why);
  sets_free(&cs);
  if (why && p->offset)
    why = kr_arena_printf(r->a, "with %s one element past an aligned address (%s; %s): %s", s->buffers.data[p->shift].name,
                          p->offset, p->offset_why, why);
  cr->pass = why == NULL;
  cr->failure = why;
  return hung ? CASE_HUNG : CASE_RAN;
}

/* ---- The compile report ------------------------------------------------------------------------- */

/* "what: the first error" (or `what` alone), for a report that could not be made. */
static const char *why_not(const char *what, const KrDiags *d, KrArena *a) {
  const char *m = kr_diags_first_error(d);
  return m ? kr_arena_printf(a, "%s: %s", what, m) : what;
}

/* The candidate's ptxas report: from its cubin on the GPU, from a cubin compiled here (and
 * cached) on the emulator. `built`: the candidate's side built for the device. */
static void compile_report(const KrSpec *spec, const KrVerifyOptions *opt, const KrSide *cand, bool built, KrArena *a,
                           KrDiags *d, const char **json, const char **line) {
  const KrCubin *cubin = built && opt->device == KR_DEVICE_CUDA ? &cand->cubin : NULL;
  const char *why = NULL;
  KrCubin own;
  if (opt->device == KR_DEVICE_CUDA && !built) {
    why = why_not("nvcc refused the candidate", d, a);
  } else if (!cubin) {
    KrDiags *nd = kr_diags_new();
    const char *nvcc;
    KrNvccOptions no = {.arch = opt->arch, .build = cand->build, .flags = kr__gpu_flags, .nflags = 1};
    size_t gl;
    const char *gt = kr__gpu_text(spec, cand->tree, cand->text, cand->len, &gl, a);
    if (kr_nvcc_find(&nvcc, a, nd) != KR_OK) why = why_not("no resource report: nvcc not found", nd, a);
    else if (kr_nvcc_compile(cand->path, gt, gl, &no, a, &own, nd) != KR_OK)
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

/* The candidate of the options: a file, a recipe to apply, or a prefix of a recipe's run. */
static KrStatus make_candidate(const KrSpec *spec, const KrVerifyOptions *opt, KrSide *ref, KrSide *cand,
                               KrCandidateInfo *info, KrArena *a, KrDiags *d) {
  KrCandidateSource from = {opt->candidate, opt->run, opt->passes};
  return kr__candidate_of(spec, &from, ref, cand, info, a, d);
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
  if (make_candidate(spec, opt, &ref, &cand, &info, a, d) != KR_OK)
    goto done;
  st = kr__side_build(&cand, spec, opt->cache_dir, opt->arch, a, d);
  if (opt->compile_report) compile_report(spec, opt, &cand, st == KR_OK, a, d, &json, &line);
done:
  if (compile) *compile = json;
  if (resources) *resources = line;
  kr__side_free(&ref);
  kr__side_free(&cand);
  return st;
}

/* ---- The plan: which cases, and whether memory allows them --------------------------------------- */

#define KR_TEST_KIND "test"
#define KR_OFFSET_KIND "offset case"
#define KR_EXTRA_KIND "beyond the test sizes"
#define KR_BENCH_KIND "benchmark size"
enum { KR_MAX_EXTRA = 12 };

/* Host bytes one case holds: per run the buffers, the input snapshot and the reference's copy. */
static uint64_t host_need(const Planned *p) { return p->bytes * (uint64_t)p->runs * 3; }

/* MemAvailable from /proc/meminfo, in bytes; 0 when it cannot be read (no check is made). */
static uint64_t mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return (uint64_t)kb * 1024;
}

static uint64_t mem_margin(uint64_t avail) {
  uint64_t m = avail / 8;
  return m > (256ull << 20) ? m : 256ull << 20;
}

static double mib(uint64_t b) { return (double)b / 1048576.0; }

/* Why case p's buffers do not fit in memory, with the figures; NULL when they do. */
static const char *too_big(const KrSpec *s, const Planned *p, uint64_t avail, KrArena *a) {
  if (!avail) return NULL;
  uint64_t margin = mem_margin(avail), need = host_need(p);
  if (avail > margin && need <= avail - margin) return NULL;
  return kr_arena_printf(a, "at %s the buffers take %.1f MiB a run, %.1f MiB with %s and the "
                            "copies verify keeps, but only %.1f MiB of memory is available "
                            "(MemAvailable %.1f MiB less a margin of %.1f MiB)",
                         kr__sizes_text(s, p->sizes, a), mib(p->bytes), mib(need),
                         p->runs > 1 ? "the second run" : "the one run",
                         avail > margin ? mib(avail - margin) : 0.0, mib(avail), mib(margin));
}

static const char *plan_add(const KrSpec *s, Plan *plan, const char *kind, size_t index,
                            uint32_t seed, int64_t *sizes, KrArena *a) {
  Planned p = {.kind = kind, .index = index, .seed = seed, .sizes = sizes,
               .runs = strcmp(kind, KR_BENCH_KIND) == 0 ? 1 : NRUNS, .shift = SIZE_MAX};
  KrEnv e = {.spec = s, .sizes = sizes};
  uint64_t *each = kr_arena_alloc(a, (s->buffers.len + 1) * sizeof *each);
  const char *why = kr__bufs_bytes(s, &e, &p.bytes, each, a);
  for (size_t i = 0; !why && i < s->buffers.len; i++)
    if (s->buffers.data[i].role == KR_ROLE_OUTPUT || s->buffers.data[i].role == KR_ROLE_INOUT)
      p.out_bytes += each[i];
  int64_t flops = 0;
  const char *ignored;
  /* Work grows faster than bytes in a matmul or a convolution: their flops say by how much. */
  if (s->flops && kr__eval(&e, s->flops, &flops, a, &ignored) != KR_OK) flops = 0;
  p.cost = (double)p.bytes + (double)(flops > 0 ? flops : 0);
  if (!why) kr_vec_push(a, plan, p);
  return why;
}

static int64_t gcd64(int64_t x, int64_t y) {
  while (y) {
    int64_t t = x % y;
    x = y, y = t;
  }
  return x;
}

static bool pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* Sizes above the test list: a kernel wrong only past a cap (a loop bounded
 * at 256, a path taken for rows longer than 4096) passes every small test. Each symbol whose
 * benchmark value exceeds its largest test value T climbs from the first power of two above T
 * towards the benchmark value: at step k it takes P*2^k, then P*2^k + g ("one past", g the gcd
 * of its test values, so divisibility the tests keep is kept; symbols tested only at powers of
 * two stay at powers of two). The others keep their benchmark value. Values stop at the
 * benchmark value, which is checked on its own. */
static void plan_extra(const KrSpec *s, Plan *plan, KrArena *a) {
  size_t ns = s->sizes.len;
  int64_t *base = kr_arena_alloc(a, (ns + 1) * sizeof *base), *g = kr_arena_alloc(a, (ns + 1) * sizeof *g);
  bool *grows = kr_arena_alloc(a, ns + 1), *two = kr_arena_alloc(a, ns + 1), any = false;
  for (size_t i = 0; i < ns; i++) {
    const KrSizeSym *y = &s->sizes.data[i];
    int64_t t = 0, gg = 0;
    two[i] = true;
    for (size_t j = 0; j < y->tests.len; j++) {
      int64_t v = y->tests.data[j];
      if (v > t) t = v;
      gg = gcd64(gg, v > 0 ? v : -v);
      two[i] = two[i] && pow2(v);
    }
    int64_t p = 1;
    while (p <= t && p < INT64_MAX / 4) p *= 2;
    grows[i] = y->bench > t;
    base[i] = p, g[i] = gg > 0 ? gg : 1;
    any = any || grows[i];
  }
  if (!any) return;
  size_t added = 0;
  for (int k = 0; k < 40 && added < KR_MAX_EXTRA; k++)
    for (int past = 0; past < 2 && added < KR_MAX_EXTRA; past++) {
      int64_t *v = kr_arena_alloc(a, (ns + 1) * sizeof *v);
      bool below = false, moved = false;
      for (size_t i = 0; i < ns; i++) {
        const KrSizeSym *y = &s->sizes.data[i];
        v[i] = y->bench;
        if (!grows[i]) continue;
        int64_t x = base[i] << k;
        if (x >= y->bench) continue;
        below = true;
        if (past && !two[i] && x + g[i] < y->bench) x += g[i], moved = true;
        v[i] = x;
      }
      if (!below) return;        /* every growing symbol reached the benchmark size */
      if (past && !moved) continue;
      if (!plan_add(s, plan, KR_EXTRA_KIND, 0, 1, v, a)) added++;
    }
}

/* ---- Offset cases ------------------------------------------------------------------------------------
 * A kernel that reads a float pointer as float4 needs it 16-byte aligned. cudaMalloc's pointers are,
 * but a program may pass x + 1, and the GPU stops a misaligned vector access. So for each pointer
 * parameter of a launched kernel that an applied pass reads or writes in wider units than its
 * elements (its record's KrAligned, passes/pass.h), or with opt->offset_cases for every buffer the
 * launches pass to a pointer parameter, one more case runs both sides with that buffer one element
 * past an aligned address, at the largest test case, seed 1. The buffer is allocated one element
 * larger and used from its second element on (kr__bufs_alloc_shifted): it keeps its count, so the
 * sizes still fit, every argument that passes it moves with it (a kernel given x and x + 1 still
 * gets them one element apart), and it is filled, poisoned and compared as usual, at the offset.
 * The candidate must compute there what the original computes: one that checks the alignment at
 * run time and falls back passes, one that assumed it fails with the misaligned access, the buffer
 * and why the case was run. A spec argument with an offset of its own is left alone, and so is a
 * case the original itself cannot run (a note says so). */

typedef struct OffsetTarget {
  size_t buffer;
  const char *why;          /* "parameter 'x' of 'vector_add', which vectorize accesses as 16-byte vectors; …" */
} OffsetTarget;

typedef KrVec(OffsetTarget) OffsetTargets;

static size_t buffer_index(const KrSpec *s, const char *name) {
  for (size_t i = 0; i < s->buffers.len; i++)
    if (strcmp(s->buffers.data[i].name, name) == 0) return i;
  return SIZE_MAX;
}

/* Adds buffer `name` with reason `why`, or the reason to the buffer's when it is there already. */
static void add_target(const KrSpec *s, OffsetTargets *out, const char *name, const char *why, KrArena *a) {
  size_t b = buffer_index(s, name);
  if (b == SIZE_MAX) return;
  for (size_t i = 0; i < out->len; i++) {
    OffsetTarget *t = &out->data[i];
    if (t->buffer != b) continue;
    if (!strstr(t->why, why)) t->why = kr_arena_printf(a, "%s; %s", t->why, why);
    return;
  }
  OffsetTarget t = {b, why};
  kr_vec_push(a, out, t);
}

/* The wide access an applied pass recorded for parameter `param` of launch l's kernel (marked in
 * `matched`), or NULL. */
static const KrAlignNeed *need_of(const Run *r, const KrLaunchSpec *l, const char *param, bool *matched) {
  const KrCandidateInfo *info = r->info;
  for (size_t n = 0; param && n < info->aligned.len; n++)
    if (strcmp(info->aligned.data[n].param, param) == 0 && kr__launch_is_kernel(l->kernel, info->aligned.data[n].kernel, r->a)) {
      matched[n] = true;
      return &info->aligned.data[n];
    }
  return NULL;
}

/* With an entry, the pointer arguments of its call (--offset-cases only: the kernels' parameters,
 * which the records name, are not the entry's). */
static void entry_targets(Run *r, OffsetTargets *out, KrVerifyReport *rep) {
  const KrEntrySpec *en = r->spec->entry;
  KrArena *a = r->a;
  for (size_t n = 0; n < r->info->aligned.len; n++) {
    const KrAlignNeed *need = &r->info->aligned.data[n];
    kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s): %s accesses '%s' of '%s' as %d-byte vectors, but "
                                                   "the spec runs the entry '%s', which launches the kernel itself, so "
                                                   "which buffer the parameter gets is not known here; --offset-cases "
                                                   "offsets each pointer argument of the entry instead", KR_OFFSET_KIND,
                                                need->pass, need->param, need->kernel, need->bytes, en->name));
  }
  for (size_t j = 0; r->opt->offset_cases && j < en->call.args.len; j++) {
    const KrArgSpec *arg = &en->call.args.data[j];
    if (arg->kind != KR_ARG_BUFFER || arg->offset) continue;
    const char *param = j < en->fn->params.len ? en->fn->params.data[j].name : "?";
    add_target(r->spec, out, arg->text, kr_arena_printf(a, "parameter '%s' of entry '%s', --offset-cases", param, en->name),
               a);
  }
}

/* The buffers of the offset cases at `sizes`, with notes for the parameters that cannot have one. */
static void offset_targets(Run *r, const int64_t *sizes, OffsetTargets *out, KrVerifyReport *rep) {
  const KrSpec *s = r->spec;
  KrArena *a = r->a;
  const KrCandidateInfo *info = r->info;
  if (s->entry) {
    entry_targets(r, out, rep);
    return;
  }
  const KrLaunchList *list;
  KrDiags *d = kr_diags_new();
  KrStatus st = kr_spec_launches(s, sizes, a, &list, d);
  kr_diags_free(d);
  if (st != KR_OK) return;   /* the test case itself reports it */
  bool *matched = kr_arena_alloc(a, info->aligned.len + 1);
  memset(matched, 0, info->aligned.len + 1);
  for (size_t i = 0; i < list->len; i++) {
    const KrLaunchSpec *l = &list->data[i];
    const KrKernel *k = kr__kernel_of(r->cand, l->kernel);
    for (size_t j = 0; j < l->args.len; j++) {
      const KrArgSpec *arg = &l->args.data[j];
      const char *param = k && j < k->params.len ? k->params.data[j].name : NULL;
      const KrAlignNeed *need = arg->kind == KR_ARG_BUFFER ? need_of(r, l, param, matched) : NULL;
      if (arg->kind != KR_ARG_BUFFER || (!need && !r->opt->offset_cases)) continue;
      const char *why = need ? kr_arena_printf(a, "parameter '%s' of '%s', which %s accesses as %d-byte vectors", param,
                                               l->kernel, need->pass, need->bytes)
                             : kr_arena_printf(a, "parameter '%s' of '%s', --offset-cases", param ? param : "?", l->kernel);
      if (arg->offset && need)
        kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s): %s, but the spec passes it at an offset of its "
                                                       "own ({ buf = \"%s\", offset = \"%s\" })", KR_OFFSET_KIND, why,
                                                    arg->text, arg->offset));
      if (!arg->offset) add_target(s, out, arg->text, why, a);
    }
  }
  for (size_t n = 0; n < info->aligned.len; n++)
    if (!matched[n])
      kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s): %s accesses '%s' of '%s' as %d-byte vectors, but "
                                                     "no launch at %s passes a buffer to it", KR_OFFSET_KIND,
                                                  info->aligned.data[n].pass, info->aligned.data[n].param,
                                                  info->aligned.data[n].kernel, info->aligned.data[n].bytes,
                                                  kr__sizes_text(s, sizes, a)));
}

/* The offset cases, after the test cases (plan->data[0..ntests)): at the largest of them, seed 1. */
static void plan_offsets(Run *r, Plan *plan, size_t ntests, KrVerifyReport *rep) {
  const KrSpec *s = r->spec;
  KrArena *a = r->a;
  bool same = r->ref->len == r->cand->len && memcmp(r->ref->text, r->cand->text, r->ref->len) == 0;
  if (r->opt->candidate && !r->opt->offset_cases && !same)
    kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%ss): a candidate file carries no record of the alignment it "
                                                   "assumes; --offset-cases runs each buffer one element past an aligned "
                                                   "address", KR_OFFSET_KIND));
  if ((!r->info->aligned.len && !r->opt->offset_cases) || ntests == 0) return;
  size_t big = 0;
  for (size_t i = 1; i < ntests; i++)
    if (plan->data[i].cost > plan->data[big].cost) big = i;
  int64_t *sizes = plan->data[big].sizes;
  size_t index = plan->data[big].index;
  OffsetTargets targets = {0};
  offset_targets(r, sizes, &targets, rep);
  for (size_t i = 0; i < targets.len; i++) {
    if (plan_add(s, plan, KR_OFFSET_KIND, index, 1, sizes, a)) continue;
    Planned *p = &plan->data[plan->len - 1];
    const KrBufferSpec *b = &s->buffers.data[targets.data[i].buffer];
    p->shift = targets.data[i].buffer;
    p->bytes += kr_dtype_size(b->dtype);
    if (b->role == KR_ROLE_OUTPUT || b->role == KR_ROLE_INOUT) p->out_bytes += kr_dtype_size(b->dtype);
    p->offset = kr_arena_printf(a, "%s + 1", b->name);
    p->offset_why = targets.data[i].why;
  }
}

/* ---- Verification ---------------------------------------------------------------------------------- */

static size_t pool_bytes(const Run *r, const Plan *plan) {
  const KrSpec *s = r->spec;
  uint64_t most = 0;
  for (size_t i = 0; i < plan->len; i++) {
    const Planned *p = &plan->data[i];
    KrEnv e = {.spec = s, .sizes = p->sizes};
    uint64_t need = (uint64_t)p->runs * (p->bytes + p->out_bytes + 256 * (2 * s->buffers.len + 1)) +
                    kr__workspaces_bytes(r->cand, s, &e, r->a);
    if (need > most) most = need;
  }
  return (size_t)most;
}

/* The cases, in order: the test cases, then sizes beyond them, then (on the GPU) the benchmark
 * size. A test case the memory cannot hold stops verification before anything is allocated;
 * the other sizes are left out with a note. */
static const char *make_plan(Run *r, uint32_t seeds, size_t ncases, Plan *plan, KrVerifyReport *rep) {
  const KrSpec *s = r->spec;
  KrArena *a = r->a;
  uint64_t avail = mem_available();
  const char *why;
  for (size_t c = 0; c < ncases; c++)
    for (uint32_t sd = 1; sd <= seeds; sd++) {
      int64_t *sizes = kr_arena_alloc(a, (s->sizes.len + 1) * sizeof *sizes);
      kr_spec_case(s, c, sizes);
      if ((why = plan_add(s, plan, KR_TEST_KIND, c, sd, sizes, a))) return why;
      if ((why = too_big(s, &plan->data[plan->len - 1], avail, a)))
        return kr_arena_printf(a, "test case %zu cannot be run: %s", c + 1, why);
    }
  plan_offsets(r, plan, plan->len, rep);
  double budget = r->opt->extra_budget_s == 0 ? KR_VERIFY_EXTRA_BUDGET_S : r->opt->extra_budget_s;
  if (budget <= 0 || r->opt->max_cases) return NULL;
  Plan more = {0};
  plan_extra(s, &more, a);
  if (r->opt->device == KR_DEVICE_CUDA) {
    int64_t *sizes = kr_arena_alloc(a, (s->sizes.len + 1) * sizeof *sizes);
    kr_spec_case(s, SIZE_MAX, sizes);
    plan_add(s, &more, KR_BENCH_KIND, 0, 1, sizes, a);
  }
  for (size_t i = 0; i < more.len; i++) {
    more.data[i].index = ncases + 1 + i;   /* after the test cases and the sampled check */
    if ((why = too_big(s, &more.data[i], avail, a))) {
      kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s): %s", more.data[i].kind, why));
      continue;
    }
    kr_vec_push(a, plan, more.data[i]);
  }
  return NULL;
}

/* ---- The benchmark size on the emulator: a sample of blocks ---------------------------------------
 * A path taken only at the benchmark size passes every test case. Running the whole grid there is
 * too slow for the emulator, so a few blocks of each launch run on both sides (the first, the last
 * and some chosen from the seed) and the elements both samples wrote are compared: outputs are
 * poisoned before the run, so what a block wrote is what is no longer poison. When the candidate's
 * grid differs from the original's (a pass changed the launch), its sampled blocks are the
 * original's scaled by the grid ratio in each dimension, so they cover about the same elements.
 * This needs blocks that write disjoint outputs, which is not so when one launch reads what another
 * wrote, or when an output is inout (blocks may accumulate into one element); then it is skipped
 * with a note saying why. */

enum { KR_SAMPLE_BLOCKS = 8, KR_SAMPLE_MIN_ELEMS = 16 };
#define KR_SAMPLE_KIND "benchmark size, sampled blocks"

/* Why blocks of this spec may not write disjoint outputs, or NULL. */
static const char *not_disjoint(const KrSpec *s, KrArena *a) {
  for (size_t i = 0; i < s->buffers.len; i++) {
    const KrBufferSpec *b = &s->buffers.data[i];
    if (b->role == KR_ROLE_INOUT)
      return kr_arena_printf(a, "'%s' is inout, so blocks may accumulate into the same elements", b->name);
    if (b->role == KR_ROLE_INPUT) continue;
    size_t uses = 0;
    for (size_t l = 0; l < s->launches.len; l++)
      for (size_t j = 0; j < s->launches.data[l].args.len; j++) {
        const KrArgSpec *g = &s->launches.data[l].args.data[j];
        if (g->kind == KR_ARG_BUFFER && strcmp(g->text, b->name) == 0) {
          uses++;
          break;
        }
      }
    if (uses > 1)
      return kr_arena_printf(a, "'%s' passes between launches, so a later launch would read what "
                                "unsampled blocks did not write", b->name);
  }
  return NULL;
}

static uint64_t grid_blocks(KrDim3 g) { return (uint64_t)g.x * g.y * g.z; }

/* The sampled blocks of a grid: the first, the last and the rest spread from the seed. */
static size_t pick_blocks(KrDim3 g, uint64_t *out, uint32_t seed, size_t li) {
  uint64_t total = grid_blocks(g);
  if (total <= KR_SAMPLE_BLOCKS) {
    for (uint64_t i = 0; i < total; i++) out[i] = i;
    return (size_t)total;
  }
  KrRng rng;
  kr_rng_seed(&rng, seed, 0x5a3b1e + li);
  out[0] = 0, out[1] = total - 1;
  for (size_t k = 2; k < KR_SAMPLE_BLOCKS; k++) out[k] = 1 + kr_rng_next(&rng) % (total - 2);
  return KR_SAMPLE_BLOCKS;
}

/* A block of grid `from` at the same relative place in grid `to`, dimension by dimension. */
static uint64_t scale_block(uint64_t b, KrDim3 from, KrDim3 to) {
  uint64_t x = b % from.x, y = b / from.x % from.y, z = b / from.x / from.y;
  x = x * to.x / from.x, y = y * to.y / from.y, z = z * to.z / from.z;
  return x + (uint64_t)to.x * (y + (uint64_t)to.y * z);
}

/* Drops repeated blocks, keeping the first of each (a block run twice in one launch would race
 * with itself): blocks scaled to a smaller grid can meet. */
static size_t distinct_blocks(uint64_t *v, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    bool seen = false;
    for (size_t j = 0; j < k && !seen; j++) seen = v[j] == v[i];
    if (!seen) v[k++] = v[i];
  }
  return k;
}

static bool poison_at(const KrPBuf *b, size_t i) {
  KrDtype t = b->spec->dtype;
  if (t == KR_DT_I32 || t == KR_DT_I64) {
    const unsigned char *p = (const unsigned char *)b->dev + i * kr_dtype_size(t);
    for (size_t k = 0; k < kr_dtype_size(t); k++)
      if (p[k] != 0x5a) return false;
    return true;
  }
  return isnan(kr_elem_get(b->dev, t, i));
}

/* Compares the elements both samples wrote (b->ref holds the original's, b->dev the
 * candidate's); *n gets how many, *ref_n and *cand_n how many each wrote. */
static const char *compare_written(const KrPBuf *b, double rtol, double atol, KrBufferCheck *c,
                                   size_t *n, size_t *ref_n, size_t *cand_n, KrArena *a) {
  KrDtype t = b->spec->dtype;
  bool ints = t == KR_DT_I32 || t == KR_DT_I64;
  double num = 0, den = 0;
  KrPBuf refv = *b;
  refv.dev = b->ref;
  c->buffer = b->spec->name;
  *n = *ref_n = *cand_n = 0;
  for (size_t i = 0; i < b->count; i++) {
    bool rw = !poison_at(&refv, i), cw = !poison_at(b, i);
    *ref_n += rw, *cand_n += cw;
    if (!rw || !cw) continue;
    (*n)++;
    double r = kr_elem_get(b->ref, t, i), o = kr_elem_get(b->dev, t, i);
    if (ints) {
      if (r != o && c->mismatches++ == 0) c->max_abs = fabs(o - r);
      continue;
    }
    if (isinf(r) || isinf(o)) {
      if (r != o) return kr_arena_printf(a, "element %zu of '%s' is %g, reference %g", i, c->buffer, o, r);
      continue;
    }
    double d = fabs(o - r);
    num += d * d, den += r * r;
    if (d > c->max_abs) c->max_abs = d;
    if (r != 0 && d / fabs(r) > c->max_rel) c->max_rel = d / fabs(r);
  }
  if (ints)
    return c->mismatches ? kr_arena_printf(a, "%zu of the %zu elements of '%s' both samples wrote "
                                              "differ", c->mismatches, *n, c->buffer) : NULL;
  c->rel_l2 = den > 0 ? sqrt(num) / sqrt(den) : (num > 0 ? INFINITY : 0);
  if (c->rel_l2 <= rtol || (den == 0 && c->max_abs <= atol)) return NULL;
  return kr_arena_printf(a, "'%s': relative L2 error %.3g over the %zu elements both samples wrote "
                            "exceeds the tolerance %.3g (max abs %.3g)", c->buffer, c->rel_l2, *n,
                         rtol, c->max_abs);
}

/* Runs both sides' sampled blocks and compares; a failure, or NULL with cr->checks filled and a
 * note per output saying how many elements were compared. *verdict is false when too few were. */
static const char *sample_compare(Run *r, KrEnv *e, KrPBuf *b, KrCaseResult *cr, bool *verdict,
                                  KrVerifyReport *rep) {
  const KrSpec *s = r->spec;
  KrArena *a = r->a;
  size_t nl = s->launches.len;
  KrCudaLaunch *lr, *lc;
  size_t nlr = 0, nlc = 0;
  const char *why = kr__pack(r->ref, s, e, b, a, &lr, &nlr);
  if (!why) why = kr__pack(r->cand, s, e, b, a, &lc, &nlc);
  if (!why && (nlr != nl || nlc != nl)) why = "a side drops launches: its blocks do not pair with the other's";
  if (why) return why;
  uint64_t **br = kr_arena_alloc(a, (nl + 1) * sizeof *br), **bc = kr_arena_alloc(a, (nl + 1) * sizeof *bc);
  size_t *nr = kr_arena_alloc(a, (nl + 1) * sizeof *nr), *nc = kr_arena_alloc(a, (nl + 1) * sizeof *nc);
  KrBuf blocks = {0};
  double share = 0;    /* the largest fraction of a grid the sample runs */
  for (size_t i = 0; i < nl; i++) {
    br[i] = kr_arena_alloc(a, KR_SAMPLE_BLOCKS * sizeof **br);
    bc[i] = kr_arena_alloc(a, KR_SAMPLE_BLOCKS * sizeof **bc);
    nr[i] = pick_blocks(lr[i].grid, br[i], 1, i);
    nr[i] = distinct_blocks(br[i], nr[i]);
    for (size_t k = 0; k < nr[i]; k++) bc[i][k] = scale_block(br[i][k], lr[i].grid, lc[i].grid);
    nc[i] = distinct_blocks(bc[i], nr[i]);
    kr_buf_printf(&blocks, "%s%zu of %llu blocks", i ? ", " : "", nr[i],
                  (unsigned long long)grid_blocks(lr[i].grid));
    share = fmax(share, (double)nr[i] / (double)grid_blocks(lr[i].grid));
  }
  KrRunHow how = {.seed = 1, .timeout = r->opt->timeout_s, .races = r->races, .blocks = (const uint64_t *const *)br,
                  .nblocks = nr};
  const KrPBuf *one = b;
  double t0 = kr_now_s();
  why = kr__bufs_prepare(s, e, b, 1, a);
  r->t_fill += kr_now_s() - t0;
  if (!why) why = kr__run_rounds(r->ref, s, e, &one, 1, &how, a);
  if (why) {
    kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s): the reference's sampled blocks "
                                                   "fail: %s", KR_SAMPLE_KIND, why));
    *verdict = false;
    kr_buf_free(&blocks);
    return NULL;
  }
  t0 = kr_now_s();
  for (size_t i = 0; i < s->buffers.len; i++) memcpy(b[i].ref, b[i].dev, b[i].bytes);
  double t1 = kr_now_s();
  r->t_copy += t1 - t0;
  how.blocks = (const uint64_t *const *)bc;
  how.nblocks = nc;
  restore(b, s->buffers.len);
  r->t_fill += kr_now_s() - t1;
  why = kr__run_rounds(r->cand, s, e, &one, 1, &how, a);
  t0 = kr_now_s();
  if (!why) why = check_inputs(b, s->buffers.len, "candidate", a);
  *verdict = true;
  for (size_t i = 0; !why && i < s->buffers.len; i++) {
    if (b[i].spec->role != KR_ROLE_OUTPUT) continue;
    KrBufferCheck c = {0};
    size_t n, rn, cn;
    why = compare_written(&b[i], buffer_rtol(r, b[i].spec->dtype), s->atol, &c, &n, &rn, &cn, a);
    kr_vec_push(a, &cr->checks, c);
    /* Disjoint blocks write about their share of the elements; far more says that the sampled
     * blocks also write elements other blocks write (the comparison then stands, but covers
     * values that other blocks may change afterwards in a full run). */
    const char *overlap = (double)rn > 2.0 * share * (double)b[i].count + 1024
      ? "; the original's blocks wrote far more than their share, so blocks may overlap in what "
        "they write" : "";
    kr_vec_push(a, &rep->notes, kr_arena_printf(a, "%s (%s): compared %zu elements of '%s' that "
                                                   "both wrote (the original's blocks wrote %zu, "
                                                   "the candidate's %zu)%s%s", KR_SAMPLE_KIND,
                                                blocks.data, n, b[i].spec->name, rn, cn,
                                                n < KR_SAMPLE_MIN_ELEMS ? ": too few for a verdict" : "",
                                                overlap));
    if (n < KR_SAMPLE_MIN_ELEMS) *verdict = false;
  }
  r->t_compare += kr_now_s() - t0;
  kr_buf_free(&blocks);
  if (why) *verdict = true;   /* a wrong element is a verdict however few were compared */
  return why;
}

/* The sampled benchmark-size check, when memory, the spec's shape and the time budget allow. */
static void bench_sample(Run *r, KrVerifyReport *rep, double budget_left, double fill_per_byte,
                         double fixed) {
  const KrSpec *s = r->spec;
  KrArena *a = r->a;
  int64_t *sizes = kr_arena_alloc(a, (s->sizes.len + 1) * sizeof *sizes);
  kr_spec_case(s, SIZE_MAX, sizes);
  Planned p = {.kind = KR_SAMPLE_KIND, .seed = 1, .sizes = sizes, .runs = 1};
  KrEnv e = {.spec = s, .sizes = sizes};
  const char *why = s->entry ? kr_arena_printf(a, "the spec runs the entry '%s', whose launches cannot be sampled "
                                                  "block by block; entries run whole, at the test sizes", s->entry->name)
                             : kr__bufs_bytes(s, &e, &p.bytes, NULL, a);
  if (!why) why = not_disjoint(s, a);
  for (size_t j = 0; !why && j < r->cand->changes.len; j++)
    if (r->cand->changes.data[j].workspace)
      why = kr_arena_printf(a, "the candidate's blocks of '%s' meet in a workspace (split_k, split_rows), so a "
                               "sample of them cannot run alone", s->launches.data[j].kernel);
  for (size_t j = 0; !why && j < r->cand->changes.len; j++)
    if (r->cand->changes.data[j].drops)
      why = kr_arena_printf(a, "the candidate's '%s' does the work of the launch of '%s' (fuse), so their blocks do not "
                               "pair with the original's", r->cand->changes.data[j].drops, s->launches.data[j].kernel);
  if (!why) why = too_big(s, &p, mem_available(), a);
  /* Measured on the examples: the whole check takes 2.5 to 7.5 times the fill time that the
   * test cases' rate predicts (large buffers fill about twice as slowly as small ones, and the
   * first touch of fresh pages, the restore, the poison and the comparison add the rest). */
  double predicted = 2 * fixed + 8 * fill_per_byte * (double)p.bytes;
  if (!why && predicted > budget_left)
    why = kr_arena_printf(a, "about %.2g s to fill its %.1f MiB of buffers, over the %.2g s "
                             "left of the budget (widen it with --extra-budget)", predicted,
                          mib(p.bytes), budget_left);
  if (why) {
    kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s): %s", KR_SAMPLE_KIND, why));
    return;
  }
  KrCaseResult cr = {.kind = KR_SAMPLE_KIND, .index = kr_spec_ncases(s), .seed = 1,
                     .sizes = kr__sizes_text(s, sizes, a)};
  KrPBuf *b = calloc(s->buffers.len + 1, sizeof *b);
  bool verdict = false;
  why = b ? kr__bufs_alloc(s, &e, b, a) : "out of memory for buffers";
  if (!why) why = sample_compare(r, &e, b, &cr, &verdict, rep);
  if (b) kr__bufs_free(b, s->buffers.len);
  free(b);
  if (!verdict) return;
  cr.pass = why == NULL;
  cr.failure = why;
  kr_vec_push(a, &rep->cases, cr);
  if (cr.pass) rep->passed++;
  else rep->failed++;
}

/* Starts the GPU child with both modules and a pool for the largest case. */
static const char *start_gpu(Run *r, const Plan *plan) {
  KrDiags *nd = kr_diags_new();
  const char *why = NULL;
  if (!r->fill.data && kr__fill_module_build(r->opt->arch, r->a, &r->fill, nd) != KR_OK) {
    why = why_not("the GPU's fill module (runtime/fill/kr_fill.cu) does not build", nd, r->a);
    kr_diags_free(nd);
    return why;
  }
  KrCudaServerModule mods[3] = {{r->ref->cubin.data, r->ref->cubin.size, "reference"},
                                {r->cand->cubin.data, r->cand->cubin.size, "candidate"},
                                {r->fill.data, r->fill.size, "fill module"}};
  if (kr_cuda_server_start(mods, 3, pool_bytes(r, plan), r->opt->timeout_s, &r->gpu, nd) != KR_OK)
    why = why_not("the GPU process could not start", nd, r->a);
  kr_diags_free(nd);
  return why;
}

/* Runs the plan. The reference failing on a test case (or at the benchmark size) stops it: nothing
 * can be checked against a reference that does not run. A candidate that hangs fails its case and
 * the rest are skipped, since each would cost the time limit again. Sizes beyond the test list
 * run while the time budget lasts, predicted from the slowest test case per byte. */
static void run_plan(Run *r, const Plan *plan, KrVerifyReport *rep) {
  KrArena *a = r->a;
  double budget = r->opt->extra_budget_s == 0 ? KR_VERIFY_EXTRA_BUDGET_S : r->opt->extra_budget_s;
  /* The time of a case is modelled as fixed + per_cost * cost (cost: bytes plus flops): `fixed`
   * the fastest test case (processes, module loads), per_cost the rise above it of the slowest
   * of the largest test cases (the small ones only measure noise). */
  double fixed = INFINITY, per_cost = 0, extra_spent = 0, big_took = 0, big = 0;
  KrBuf over = {0};
  bool sampled = r->opt->device != KR_DEVICE_CPU || budget <= 0 || r->opt->max_cases;
  for (size_t i = 0; i <= plan->len; i++) {
    const Planned *p = i < plan->len ? &plan->data[i] : NULL;
    bool extra = p && strcmp(p->kind, KR_EXTRA_KIND) == 0;
    bool offset = p && p->offset;
    if (!sampled && (extra || !p) && !rep->stopped) {
      /* After the test cases, before the sizes between them and the benchmark size. */
      sampled = true;
      double t0 = kr_now_s();
      bench_sample(r, rep, budget, r->fill_bytes ? r->fill_s / (double)r->fill_bytes : 0,
                   isinf(fixed) ? 0 : fixed);
      extra_spent += kr_now_s() - t0;
    }
    if (!p) break;
    if (extra && extra_spent + (isinf(fixed) ? 0 : fixed) + per_cost * p->cost > budget) {
      kr_buf_printf(&over, "%s%s", over.len ? "; " : "", kr__sizes_text(r->spec, p->sizes, a));
      continue;
    }
    double t0 = kr_now_s();
    KrCaseResult cr;
    const char *ref_why = NULL;
    CaseEnd end = run_case(r, p, &cr, &ref_why);
    double took = kr_now_s() - t0;
    if (extra) {
      extra_spent += took;
    } else {
      fixed = fmin(fixed, took);
      if (p->cost > big) big = p->cost, big_took = took;
      else if (p->cost == big) big_took = fmax(big_took, took);
      per_cost = big > 0 ? fmax(0, big_took - fixed) / big : 0;
    }
    if (end == CASE_REF_FAILED && extra) {
      kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked at %s (%s): the reference fails "
                                                     "there: %s", cr.sizes, p->kind, ref_why));
      continue;
    }
    if (end == CASE_REF_FAILED && offset) {
      kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s %s, %s): the original fails with it one element "
                                                     "past an aligned address, so there is nothing to compare "
                                                     "with: %s", KR_OFFSET_KIND, p->offset, p->offset_why, ref_why));
      continue;
    }
    if (end == CASE_REF_FAILED) {
      rep->error = kr_arena_printf(a, "%s (at %s, seed %u); nothing can be checked against the "
                                      "reference, so verification stopped", ref_why, cr.sizes, p->seed);
      break;
    }
    kr_vec_push(a, &rep->cases, cr);
    if (cr.pass) rep->passed++;
    else rep->failed++;
    if (end == CASE_HUNG && i + 1 < plan->len) {
      rep->skipped = plan->len - i - 1;
      rep->stopped = kr_arena_printf(a, "the candidate hung at %s, seed %u: the remaining %zu "
                                        "case%s were skipped", cr.sizes, p->seed, rep->skipped,
                                     rep->skipped == 1 ? "" : "s");
      break;
    }
  }
  if (over.len)
    kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s, over the %.2g s budget; widen it "
                                                   "with --extra-budget): %s", KR_EXTRA_KIND, budget,
                                                over.data));
  kr_buf_free(&over);
}

/* ---- Fixed work, predicted -----------------------------------------------------------------------------
 * A kernel whose loops run to compile-time bounds does the same work at every test size; when the
 * emulator's measured cost says a launch of it would take far longer than the time limit (more than
 * kPredictFactor times), the user hears so before waiting for the time-out, with the define to give
 * (kr__fixed_work_predict). It stays a warning: the run goes on, and its own result is the verdict. */

static const double kPredictFactor = 3;

static void predict_fixed_work(Run *r, const Plan *plan, KrVerifyReport *rep, KrDiags *d) {
  KrArena *a = r->a;
  double timeout = r->opt->timeout_s > 0 ? r->opt->timeout_s : 20;
  for (int side = 0; side < 2; side++) {
    const KrSide *sd = side ? r->cand : r->ref;
    const char *msg = NULL;
    uint32_t at = 0;
    double worst = 0;
    for (size_t i = 0; i < plan->len; i++) {
      const Planned *p = &plan->data[i];
      if (strcmp(p->kind, KR_TEST_KIND) != 0 || p->seed != 1) continue;
      KrEnv e = {.spec = r->spec, .sizes = p->sizes};
      uint32_t at1 = 0;
      double t;
      const char *m = kr__fixed_work_predict(sd, r->spec, &e, timeout, kPredictFactor, &at1, &t, a);
      if (m && t > worst) msg = m, worst = t, at = at1;
    }
    if (!msg) continue;
    KrDiags *w = kr_diags_new();
    kr_diag_at(w, KR_DIAG_WARNING, &sd->src, at, "%s", msg);
    if (r->opt->warn) r->opt->warn(r->opt->warn_ctx, &w->items.data[0]);
    else kr_diag_at(d, KR_DIAG_WARNING, &sd->src, at, "%s", msg);
    kr_diags_free(w);
    kr_vec_push(a, &rep->notes, kr_arena_printf(a, "predicted before the run: %s", msg));
    break;   /* the reference's, when it has one: it runs first, and the candidate's would repeat it */
  }
}

/* ---- Building both sides at once -------------------------------------------------------------------
 * The build caches (the emulator's libraries, nvcc's cubins) are content-addressed and filled
 * atomically, so a child can build the candidate into them while this process builds the
 * reference; the candidate's own build afterwards is then a cache hit. The child's diagnostics
 * are dropped: a candidate that does not build fails again here, with its messages. */

typedef struct PreBuild {
  const KrSide *cand;
  const KrSpec *spec;
  const KrVerifyOptions *opt;
} PreBuild;

static void prebuild_child(void *ctx, int fd) {
  const PreBuild *p = ctx;
  KrSide s = *p->cand;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  kr__side_build(&s, p->spec, p->opt->cache_dir, p->opt->arch, a, d);
  (void)fd;   /* the end of the pipe (this process exiting) says it is done */
}

static void prebuild_wait(int pid, int fd) {
  char c;
  kr_proc_read_record(fd, &c, 1, kr_now_s() + 900);
  close(fd);
  kill(pid, SIGKILL);   /* only past the deadline does it still run; nvcc's own limit is 300 s */
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
}

static KrStatus build_both(KrSide *ref, KrSide *cand, const KrSpec *spec, const KrVerifyOptions *opt,
                           bool *cand_built, KrArena *a, KrDiags *d) {
  PreBuild pb = {cand, spec, opt};
  int pid = -1, fd = -1;
  bool parallel = !(ref->len == cand->len && memcmp(ref->text, cand->text, ref->len) == 0);
  KrDiags *nd = kr_diags_new();
  if (parallel && kr_proc_fork(prebuild_child, &pb, "build the candidate", &pid, &fd, nd) != KR_OK) pid = -1;
  kr_diags_free(nd);
  KrStatus st = kr__side_build(ref, spec, opt->cache_dir, opt->arch, a, d);
  if (pid >= 0) prebuild_wait(pid, fd);
  if (st != KR_OK) return st;
  *cand_built = kr__side_build(cand, spec, opt->cache_dir, opt->arch, a, d) == KR_OK;
  return KR_OK;
}

KrStatus kr_verify(const KrSpec *spec, const KrVerifyOptions *opt, KrArena *a,
                   KrVerifyReport **out, KrDiags *d) {
  double t_start = kr_now_s();
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
  Plan plan = {0};
  if (kr_file_read(spec->source, a, &t, &ref.len, d) != KR_OK) goto done;
  ref.text = t;
  if (make_candidate(spec, opt, &ref, &cand, &info, a, d) != KR_OK)
    goto done;
  r.info = &info;
  rep->candidate = info.label;
  rep->precision = info.precision;
  r.rtol = info.rtol;
  r.lowered = info.lowered;
  r.reassociated = info.reassociates;
  for (size_t i = 0; (r.lowered || r.reassociated) && i < spec->buffers.len; i++) {
    KrDtype dt = spec->buffers.data[i].dtype;
    if (spec->buffers.data[i].role == KR_ROLE_INPUT || buffer_rtol(&r, dt) == r.rtol) continue;
    rep->precision = kr_arena_printf(a, "%s; %s output '%s' held to %.2g (rounding to 16 bits%s)",
                                     rep->precision, kr_dtype_name(dt), spec->buffers.data[i].name,
                                     buffer_rtol(&r, dt), r.lowered ? "" : " after a reassociated sum");
  }
  double t_build = kr_now_s();
  bool built = false;
  if (build_both(&ref, &cand, spec, opt, &built, a, d) != KR_OK) {
    rep->error = kr_arena_printf(a, "the reference does not build for %s", where);
    goto done;
  }
  rep->build_s = kr_now_s() - t_build;
  if (opt->compile_report) compile_report(spec, opt, &cand, built, a, d, &rep->compile, &rep->resources);
  if (!built) {
    rep->error = kr_arena_printf(a, "the candidate does not build for %s", where);
    rep->build_failed = true;
    goto done;
  }
  rep->tolerance = r.rtol;
  /* Races on global memory are checked when asked for, and when either side synchronises through
   * shared memory or atomics: a candidate that drops the original's atomics is exactly the one
   * whose plain read-modify-writes must be watched. */
  r.races = opt->race_check ? KR_EMU_RACE_ON : KR_EMU_RACE_AUTO;
  if (opt->device == KR_DEVICE_CPU && (kr_emu_module_syncs(ref.mod) || kr_emu_module_syncs(cand.mod)))
    r.races = KR_EMU_RACE_ON;   /* the candidate's runs; the reference keeps its own default */
  uint32_t seeds = opt->seeds ? opt->seeds : spec->seeds;
  size_t ncases = kr_spec_ncases(spec);
  if (opt->max_cases && opt->max_cases < ncases) ncases = opt->max_cases;
  double t_run = kr_now_s();
  if ((rep->error = make_plan(&r, seeds, ncases, &plan, rep))) goto done;
  if (opt->device == KR_DEVICE_CUDA && (rep->error = start_gpu(&r, &plan)) && plan.len &&
      strcmp(plan.data[plan.len - 1].kind, KR_BENCH_KIND) == 0) {
    /* The benchmark size may be what the GPU cannot hold: without it, the rest still runs. */
    const char *first = rep->error;
    plan.len--;
    if (!(rep->error = start_gpu(&r, &plan)))
      kr_vec_push(a, &rep->notes, kr_arena_printf(a, "not checked (%s): %s", KR_BENCH_KIND, first));
  }
  if (rep->error) goto done;
  if (opt->device == KR_DEVICE_CPU) predict_fixed_work(&r, &plan, rep, d);
  run_plan(&r, &plan, rep);
  if (r.warning) kr_vec_push(a, &rep->notes, r.warning);
  rep->run_s = kr_now_s() - t_run;
  if (r.gpu) rep->gpu_setup_s = kr_cuda_server_setup_s(r.gpu);
  rep->fill_s = r.t_fill, rep->copy_s = r.t_copy, rep->compare_s = r.t_compare;
  st = rep->failed || rep->error ? KR_ERR : KR_OK;
done:
  kr_cuda_server_free(r.gpu);
  if (!rep->error && st != KR_OK && rep->cases.len == 0) rep->error = "verification could not start";
  kr__side_free(&ref);
  kr__side_free(&cand);
  rep->total_s = kr_now_s() - t_start;
  return st;
}

/* ---- Reports ------------------------------------------------------------------------------------- */

/* "offset cases at n=4099 (each buffer one element past an aligned address): x + 1 (why): passed; …" */
static void offsets_text(const KrVerifyReport *r, KrBuf *o) {
  size_t n = 0;
  for (size_t i = 0; i < r->cases.len; i++) {
    const KrCaseResult *c = &r->cases.data[i];
    if (!c->offset) continue;
    if (!n++) kr_buf_printf(o, "offset cases at %s (each buffer one element past an aligned address): ", c->sizes);
    else kr_buf_puts(o, "; ");
    kr_buf_printf(o, "%s (%s): %s", c->offset, c->offset_why, c->pass ? "passed" : "FAILED");
  }
  if (n) kr_buf_putc(o, '\n');
}

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
    if (c->offset) kr_buf_printf(o, " (%s: %s)", c->kind, c->offset);
    else if (c->kind && strcmp(c->kind, KR_TEST_KIND) != 0) kr_buf_printf(o, " (%s)", c->kind);
    for (size_t j = 0; j < c->checks.len; j++) {
      const KrBufferCheck *k = &c->checks.data[j];
      kr_buf_printf(o, "  %s: rel_l2 %.2e max_abs %.2e", k->buffer, k->rel_l2, k->max_abs);
    }
    if (c->failure) kr_buf_printf(o, "\n        %s", c->failure);
    kr_buf_putc(o, '\n');
  }
  offsets_text(r, o);
  for (size_t i = 0; i < r->notes.len; i++) kr_buf_printf(o, "note: %s\n", r->notes.data[i]);
  if (r->stopped) kr_buf_printf(o, "stopped: %s\n", r->stopped);
  kr_buf_printf(o, "%zu passed, %zu failed", r->passed, r->failed);
  if (r->skipped) kr_buf_printf(o, ", %zu skipped", r->skipped);
  kr_buf_putc(o, '\n');
}

void kr_verify_json(const KrVerifyReport *r, KrBuf *o) {
  kr_buf_puts(o, "{\"problem\": "), kr_buf_json_str(o, r->problem);
  kr_buf_puts(o, ", \"reference\": "), kr_buf_json_str(o, r->reference);
  kr_buf_puts(o, ", \"candidate\": "), kr_buf_json_str(o, r->candidate);
  kr_buf_puts(o, ", \"precision\": "), kr_buf_json_str(o, r->precision);
  kr_buf_puts(o, ", \"tolerance\": "), kr_buf_json_num(o, r->tolerance);
  kr_buf_puts(o, ", \"error\": "), kr_buf_json_str(o, r->error);
  kr_buf_printf(o, ", \"passed\": %zu, \"failed\": %zu, \"skipped\": %zu", r->passed, r->failed,
                r->skipped);
  kr_buf_puts(o, ", \"stopped\": "), kr_buf_json_str(o, r->stopped);
  kr_buf_puts(o, ", \"notes\": [");
  for (size_t i = 0; i < r->notes.len; i++) {
    if (i) kr_buf_puts(o, ", ");
    kr_buf_json_str(o, r->notes.data[i]);
  }
  kr_buf_puts(o, "], \"timing\": {\"total_s\": "), kr_buf_json_num(o, r->total_s);
  kr_buf_puts(o, ", \"build_s\": "), kr_buf_json_num(o, r->build_s);
  kr_buf_puts(o, ", \"run_s\": "), kr_buf_json_num(o, r->run_s);
  kr_buf_puts(o, ", \"gpu_setup_s\": "), kr_buf_json_num(o, r->gpu_setup_s);
  kr_buf_puts(o, ", \"fill_s\": "), kr_buf_json_num(o, r->fill_s);
  kr_buf_puts(o, ", \"copy_s\": "), kr_buf_json_num(o, r->copy_s);
  kr_buf_puts(o, ", \"compare_s\": "), kr_buf_json_num(o, r->compare_s);
  kr_buf_puts(o, "}, \"cases\": [");
  for (size_t i = 0; i < r->cases.len; i++) {
    const KrCaseResult *c = &r->cases.data[i];
    kr_buf_printf(o, "%s\n  {\"case\": %zu, \"kind\": ", i ? "," : "", c->index);
    kr_buf_json_str(o, c->kind);
    kr_buf_printf(o, ", \"seed\": %u, \"sizes\": ", c->seed);
    kr_buf_json_str(o, c->sizes);
    kr_buf_printf(o, ", \"pass\": %s, \"failure\": ", c->pass ? "true" : "false");
    kr_buf_json_str(o, c->failure);
    kr_buf_puts(o, ", \"offset\": "), kr_buf_json_str(o, c->offset);
    kr_buf_puts(o, ", \"offset_why\": "), kr_buf_json_str(o, c->offset_why);
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
