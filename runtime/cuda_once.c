/* runtime/cuda_once.c: the spec's launches run once, in this process, for a profiler
 * (cuda_once.h). The candidate is made and built as verify and bench make it (prun.c), the
 * buffers are filled as bench's check run fills them, and the run itself is the one kr_cuda_run's
 * child makes (kr__cuda_run_child), called here directly with its records written to a temporary
 * file instead of a pipe, and read back afterwards for the outcome. */
#include "runtime/cuda_once.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_internal.h"
#include "runtime/prun.h"

/* Reads the sides' sources and makes the candidate's text, then parses and compiles it. */
static KrStatus make_candidate(const KrSpec *s, const KrLaunchOnceOptions *o, KrSide *ref,
                               KrSide *cand, const char **label, KrArena *a, KrDiags *d) {
  char *text;
  if (kr_file_read(s->source, a, &text, &ref->len, d) != KR_OK) return KR_ERR;
  ref->text = text;
  KrCandidateInfo info;
  KrCandidateSource from = {o->candidate, o->run, SIZE_MAX};
  if (kr__candidate_of(s, &from, ref, cand, &info, a, d) != KR_OK) return KR_ERR;
  if (label) *label = info.label;
  return kr__side_build(cand, s, NULL, o->arch ? o->arch : KR_NVCC_DEFAULT_ARCH, a, d);
}

KrStatus kr_cuda_once_build(const KrSpec *spec, const KrLaunchOnceOptions *o, KrArena *a,
                            const char **label, KrDiags *d) {
  KrSide ref = {.label = "reference", .path = spec->source, .device = KR_DEVICE_CUDA};
  KrSide cand = {.label = "candidate", .device = KR_DEVICE_CUDA};
  KrStatus st = make_candidate(spec, o, &ref, &cand, label, a, d);
  kr__side_free(&ref);
  kr__side_free(&cand);
  return st;
}

/* Runs the job here; its records go to a temporary file, read back for the one failure. */
static KrStatus run_here(KrCudaRunJob *job, KrDiags *d) {
  FILE *f = tmpfile();
  if (!f) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "cannot create a temporary file for the GPU run's records: %s", strerror(errno));
    return KR_ERR;
  }
  kr__cuda_run_child(job, fileno(f));
  rewind(f);
  KrCudaRecord r, phase = {0};
  bool done = false, failed = false;
  while (!failed && fread(&r, sizeof r, 1, f) == 1) {
    r.text[sizeof r.text - 1] = 0;
    if (r.kind == KR_CREC_PHASE) phase = r;
    else if (r.kind == KR_CREC_DONE) done = true;
    else if (r.kind == KR_CREC_FAIL) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s", r.text);
      failed = true;
    }
  }
  fclose(f);
  if (done && !failed) return KR_OK;
  if (!failed)
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "the GPU run stopped while %s, before it finished",
                phase.text[0] ? phase.text : "starting");
  return KR_ERR;
}

KrStatus kr_cuda_launch_once(const KrSpec *s, const KrLaunchOnceOptions *o, KrArena *a,
                             KrDiags *d) {
  KrSide ref = {.label = "reference", .path = s->source, .device = KR_DEVICE_CUDA};
  KrSide cand = {.label = "candidate", .device = KR_DEVICE_CUDA};
  size_t nb = s->buffers.len;
  KrPBuf *b = calloc(nb + 1, sizeof *b);
  int64_t *sizes = kr_arena_alloc(a, (s->sizes.len + 1) * sizeof *sizes);
  kr_spec_case(s, SIZE_MAX, sizes);
  KrEnv e = {.spec = s, .sizes = sizes};
  KrCudaLaunch *ls = NULL;
  size_t nl = 0;
  const char *why = NULL;
  KrStatus st = KR_ERR;
  if (!b) {
    why = "out of memory for buffers";
    goto done;
  }
  if (make_candidate(s, o, &ref, &cand, NULL, a, d) != KR_OK) goto done;
  if ((why = kr__bufs_alloc(s, &e, b, a)) || (why = kr__bufs_prepare(s, &e, b, 1, a)) ||
      (why = kr__workspaces_ready(&cand, s, &e, NULL, a)) || (why = kr__pack(&cand, s, &e, b, a, &ls, &nl)))
    goto done;
  KrCudaBuffer *cb = kr_arena_alloc(a, (nb + s->launches.len + 1) * sizeof *cb);
  for (size_t i = 0; i < nb; i++) cb[i] = (KrCudaBuffer){b[i].spec->name, b[i].dev, b[i].bytes};
  size_t ncb = nb + kr__workspace_buffers(&cand, s, cb + nb);
  if (!kr__cuda_check_launches(ls, nl, cb, ncb, "", d)) goto done;
  /* Not confined: this is krewrite's own process, which goes on (and a profiler's hooks in it). */
  KrCudaRunJob job = {cand.cubin.data, cand.cubin.size, ls, nl, cb, ncb,
                      .confine = false};
  st = run_here(&job, d);
done:
  if (why) kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s: %s", s->path, why);
  if (b) kr__bufs_free(b, nb);
  free(b);
  kr__side_free(&ref);
  kr__side_free(&cand);
  return st;
}
