/* runtime/cuda_bench.c: timing kernels on the GPU (cuda.h, kr_cuda_bench), the way PERF.md ("How
 * to measure") asks: one child process holds every variant's module; CUDA events around the
 * launches only; warm-up first; many repetitions, interleaved between variants with the order
 * reversed on every other repetition to cancel drift; the L2 flushed and inout buffers restored
 * between repetitions, outside the timed region; inputs rotated among several device copies so
 * that no repetition finds its inputs in a cache. Buffers are copied from the host, or made on
 * the device by the GPU's fill module (runtime/fill/kr_fill.cu) or a pattern, as the options say.
 * The child writes the times into shared memory; the parent sorts them into a median and a
 * spread. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/proc.h"
#include "runtime/cuda_internal.h"

KrBenchOptions kr_bench_options_default(void) {
  return (KrBenchOptions){.warmup = 5, .min_reps = 50, .min_seconds = 1.0, .input_sets = 3,
                          .l2_flush_bytes = (size_t)256 << 20, .timeout_s = 600.0};
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double percentile(const double *sorted, int n, double p) {
  double pos = p * (double)(n - 1);
  int lo = (int)pos;
  if (lo >= n - 1) return sorted[n - 1];
  return sorted[lo] + (pos - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

void kr_bench_stats(double *ms, int n, KrBenchTimes *out) {
  memset(out, 0, sizeof *out);
  if (n <= 0) return;
  qsort(ms, (size_t)n, sizeof *ms, cmp_double);
  out->reps = n;
  out->min_ms = ms[0];
  out->max_ms = ms[n - 1];
  out->median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  out->p10_ms = percentile(ms, n, 0.10);
  out->p90_ms = percentile(ms, n, 0.90);
}

/* ---- The child -------------------------------------------------------------------------------------- */

typedef struct BenchJob {
  const KrBenchVariant *v;
  size_t nv;
  const KrCudaBuffer *bufs;
  const bool *is_input, *is_inout;
  size_t nbufs;
  KrBenchOptions o;
  double *ms;              /* shared with the parent: nv x KR_BENCH_MAX_REPS */
  int *reps;               /* shared: nv */
} BenchJob;

/* One variant's launches, ready for each input set: params[set][launch][arg]. */
typedef struct Prepared {
  KrCudaModule m;
  CUfunction *fns;
  char **where;
  void ***params;         /* [set][launch]: the argument array for cuLaunchKernel */
} Prepared;

typedef struct Bench {
  KrCudaSession s;
  const BenchJob *j;
  int sets;
  CUdeviceptr *dev;        /* nbufs x sets: buffer b's copy for set k at [b * sets + k] */
  CUdeviceptr *pristine;   /* nbufs: inout buffers' untouched copies (0 for others) */
  CUdeviceptr flush;
  Prepared *prep;
  CUevent start, stop;
  unsigned flushes;
  CUfunction fill;         /* the fill module's kr_fill, when buffers are made on the device */
} Bench;

static void *zalloc(Bench *b, size_t n, size_t size) {
  void *p = calloc(n + 1, size);
  if (!p) kr__cuda_send(b->s.fd, KR_CREC_FAIL, 0, 0, "out of memory in the GPU process");
  return p;
}

static bool is_input(const BenchJob *j, size_t i) { return j->is_input && j->is_input[i]; }
static bool is_inout(const BenchJob *j, size_t i) { return j->is_inout && j->is_inout[i]; }

static bool upload(Bench *b, CUdeviceptr *to, const KrCudaBuffer *buf, const char *what) {
  const char *name = buf->name ? buf->name : "?";
  return kr__cuda_ok(&b->s, b->s.drv.MemAlloc(to, buf->bytes ? buf->bytes : 1),
                     "allocating %s of buffer '%s' (%zu bytes)", what, name, buf->bytes) &&
         (!buf->bytes || kr__cuda_ok(&b->s, b->s.drv.MemcpyHtoD(*to, buf->host, buf->bytes),
                                     "copying buffer '%s' to the device", name));
}

/* Whether buffer i is made on the device (KrBenchOptions.fills). */
static const KrCudaData *made(const BenchJob *j, size_t i) {
  const KrCudaData *f = j->o.fills ? &j->o.fills[i] : NULL;
  return f && (f->kind == KR_CUDA_DATA_FILL || f->kind == KR_CUDA_DATA_SET) ? f : NULL;
}

/* A device copy of a buffer made as f says: a pattern, or the fill module's kr_fill. */
static bool make(Bench *b, CUdeviceptr *to, const KrCudaBuffer *buf, const KrCudaData *f, const char *what) {
  const char *name = buf->name ? buf->name : "?";
  const KrCudaDriver *drv = &b->s.drv;
  if (!kr__cuda_ok(&b->s, drv->MemAlloc(to, buf->bytes ? buf->bytes : 1), "allocating %s of buffer "
                   "'%s' (%zu bytes)", what, name, buf->bytes))
    return false;
  if (!buf->bytes) return true;
  if (f->kind == KR_CUDA_DATA_SET) {
    CUresult r = f->pattern_size == 1 ? drv->MemsetD8(*to, (unsigned char)f->pattern, buf->bytes)
               : f->pattern_size == 2 ? drv->MemsetD16(*to, (unsigned short)f->pattern, buf->bytes / 2)
               : drv->MemsetD32(*to, f->pattern, buf->bytes / 4);
    return kr__cuda_ok(&b->s, r, "setting buffer '%s' on the device", name);
  }
  CUdeviceptr at = *to;
  unsigned long long count = f->count, key = f->key;
  double lo = f->a, hi = f->b;
  int gen = f->gen, dtype = f->dtype;
  void *params[] = {&at, &count, &key, &lo, &hi, &gen, &dtype};
  uint64_t blocks = (count + 255) / 256;
  unsigned grid = blocks > (1u << 16) ? 1u << 16 : blocks ? (unsigned)blocks : 1;
  return kr__cuda_ok(&b->s, drv->LaunchKernel(b->fill, grid, 1, 1, 256, 1, 1, 0, NULL, params, NULL),
                     "filling buffer '%s' on the device", name) &&
         kr__cuda_ok(&b->s, drv->CtxSynchronize(), "filling buffer '%s' on the device", name);
}

static bool place(Bench *b, CUdeviceptr *to, size_t i, const char *what) {
  const KrCudaData *f = made(b->j, i);
  return f ? make(b, to, &b->j->bufs[i], f, what) : upload(b, to, &b->j->bufs[i], what);
}

/* Loads the fill module when a buffer is filled on the device. */
static bool fill_module(Bench *b) {
  const BenchJob *j = b->j;
  bool any = false;
  for (size_t i = 0; i < j->nbufs; i++) any = any || (made(j, i) && made(j, i)->kind == KR_CUDA_DATA_FILL);
  if (!any) return true;
  if (!j->o.fill_cubin) {
    kr__cuda_send(b->s.fd, KR_CREC_FAIL, 0, 0, "a buffer is to be filled on the device, but no fill "
                  "module was given");
    return false;
  }
  KrCudaModule m;
  return kr__cuda_module_load(&b->s, j->o.fill_cubin, j->o.fill_size, "the fill module", &m) &&
         kr__cuda_kernel_find(&b->s, &m, "kr_fill", &b->fill);
}

static bool allocate(Bench *b) {
  const BenchJob *j = b->j;
  b->dev = zalloc(b, j->nbufs * (size_t)b->sets, sizeof *b->dev);
  b->pristine = zalloc(b, j->nbufs, sizeof *b->pristine);
  if (!b->dev || !b->pristine || !fill_module(b)) return false;
  for (size_t i = 0; i < j->nbufs; i++) {
    int copies = is_input(j, i) ? b->sets : 1;
    for (int k = 0; k < copies; k++)
      if (!place(b, &b->dev[i * (size_t)b->sets + (size_t)k], i, "a copy")) return false;
    if (is_inout(j, i) && !place(b, &b->pristine[i], i, "the pristine copy")) return false;
  }
  if (j->o.l2_flush_bytes &&
      !kr__cuda_ok(&b->s, b->s.drv.MemAlloc(&b->flush, j->o.l2_flush_bytes),
                   "allocating the L2 flush buffer (%zu bytes)", j->o.l2_flush_bytes))
    return false;
  return kr__cuda_ok(&b->s, b->s.drv.EventCreate(&b->start, 0), "creating an event") &&
         kr__cuda_ok(&b->s, b->s.drv.EventCreate(&b->stop, 0), "creating an event");
}

/* Loads variant v's module, finds and checks its kernels, and translates its arguments for every
 * input set. */
static bool prepare(Bench *b, size_t v) {
  const BenchJob *j = b->j;
  const KrBenchVariant *var = &j->v[v];
  Prepared *p = &b->prep[v];
  char what[300];
  snprintf(what, sizeof what, "the %s of variant '%s'", kr_cuda_is_library(var->cubin, var->size) ? "entry library" : "cubin",
           var->label ? var->label : "?");
  kr__cuda_send(b->s.fd, KR_CREC_PHASE, -1, 0, "loading %s", what);
  if (!kr__cuda_module_load(&b->s, var->cubin, var->size, what, &p->m)) return false;
  p->fns = zalloc(b, var->n, sizeof *p->fns);
  p->where = zalloc(b, var->n, sizeof *p->where);
  p->params = zalloc(b, (size_t)b->sets, sizeof *p->params);
  CUdeviceptr *set_dev = zalloc(b, j->nbufs, sizeof *set_dev);
  if (!p->fns || !p->where || !p->params || !set_dev) return false;
  for (size_t i = 0; i < var->n; i++) {
    KrBuf w = {0};
    kr_buf_printf(&w, "%s '%s' of variant '%s'", p->m.call ? "entry" : "kernel", var->launches[i].kernel,
                  var->label ? var->label : "?");
    p->where[i] = kr_buf_steal(&w);
    if (!kr__cuda_launch_ready(&b->s, &p->m, &var->launches[i], p->where[i], &p->fns[i])) return false;
  }
  for (int k = 0; k < b->sets; k++) {
    for (size_t i = 0; i < j->nbufs; i++)
      set_dev[i] = b->dev[i * (size_t)b->sets + (size_t)(is_input(j, i) ? k : 0)];
    if (!(p->params[k] = zalloc(b, var->n, sizeof *p->params[k]))) return false;
    for (size_t i = 0; i < var->n; i++) {
      const KrCudaLaunch *l = &var->launches[i];
      unsigned long long *slots = zalloc(b, l->nargs, sizeof *slots);
      if (!slots || !(p->params[k][i] = zalloc(b, l->nargs, sizeof(void *)))) return false;
      char err[512];
      if (!kr_cuda_args_translate(l, j->bufs, j->nbufs, set_dev, slots, p->params[k][i], err, sizeof err)) {
        kr__cuda_send(b->s.fd, KR_CREC_FAIL, 0, 0, "%s: %s", p->where[i], err);
        return false;
      }
    }
  }
  free(set_dev);
  return true;
}

/* One repetition of variant v on input set k: inout buffers restored and the L2 flushed, then the
 * launches between two events. `checked` synchronises after each launch, so that an error names
 * its kernel (untimed). *ms gets the elapsed time when ms is not NULL. */
static bool rep(Bench *b, size_t v, int k, bool checked, double *ms) {
  const BenchJob *j = b->j;
  const KrBenchVariant *var = &j->v[v];
  const Prepared *p = &b->prep[v];
  const KrCudaDriver *drv = &b->s.drv;
  const char *label = var->label ? var->label : "?";
  for (size_t i = 0; i < j->nbufs; i++)
    if (is_inout(j, i) && j->bufs[i].bytes &&
        !kr__cuda_ok(&b->s, drv->MemcpyDtoD(b->dev[i * (size_t)b->sets], b->pristine[i], j->bufs[i].bytes),
                     "restoring inout buffer '%s'", j->bufs[i].name ? j->bufs[i].name : "?"))
      return false;
  if (b->flush && !kr__cuda_ok(&b->s, drv->MemsetD8(b->flush, (unsigned char)(b->flushes++ & 0xff),
                                                    j->o.l2_flush_bytes), "flushing the L2"))
    return false;
  if (!kr__cuda_ok(&b->s, drv->EventRecord(b->start, NULL), "recording the start event of variant '%s'", label))
    return false;
  for (size_t i = 0; i < var->n; i++) {
    if (!kr__cuda_launch_start(&b->s, &p->m, p->fns[i], &var->launches[i], p->params[k][i], p->where[i]) ||
        (checked && !kr__cuda_ok(&b->s, drv->CtxSynchronize(), "in %s", p->where[i])))
      return false;
  }
  float t = 0;
  if (!kr__cuda_ok(&b->s, drv->EventRecord(b->stop, NULL), "recording the stop event of variant '%s'", label) ||
      !kr__cuda_ok(&b->s, drv->EventSynchronize(b->stop), "in the kernels of variant '%s'", label) ||
      !kr__cuda_ok(&b->s, drv->CtxSynchronize(), "in the kernels of variant '%s'", label) ||
      !kr__cuda_ok(&b->s, drv->EventElapsedTime(&t, b->start, b->stop), "reading the events of variant '%s'", label))
    return false;
  if (ms) *ms = (double)t;
  return true;
}

static bool enough(const Bench *b, double t0) {
  const BenchJob *j = b->j;
  bool all_capped = true, all_min = true;
  for (size_t v = 0; v < j->nv; v++) {
    if (j->reps[v] < KR_BENCH_MAX_REPS) all_capped = false;
    if (j->reps[v] < j->o.min_reps) all_min = false;
  }
  return all_capped || (all_min && kr_now_s() - t0 >= j->o.min_seconds);
}

static void bench_child(void *ctx, int fd) {
  const BenchJob *j = ctx;
  Bench *b = calloc(1, sizeof *b);
  if (!b) return;
  b->j = j;
  b->sets = j->o.input_sets;
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "setting up the GPU");
  if (!kr__cuda_session_open(&b->s, fd)) return;
  if (!(b->prep = zalloc(b, j->nv, sizeof *b->prep))) return;
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "putting the buffers on the device");
  if (!allocate(b)) return;
  for (size_t v = 0; v < j->nv; v++)
    if (!prepare(b, v)) return;
  if (!kr__cuda_confine(&b->s)) return;
  int warm = j->o.warmup > 0 ? j->o.warmup : 1;
  for (size_t v = 0; v < j->nv; v++) {
    kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "warming up variant '%s'", j->v[v].label ? j->v[v].label : "?");
    for (int w = 0; w < warm; w++)
      if (!rep(b, v, w % b->sets, w == 0, NULL)) return;
  }
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "timing the variants");
  double t0 = kr_now_s();
  for (int r = 0; !enough(b, t0); r++) {
    for (size_t i = 0; i < j->nv; i++) {
      size_t v = r % 2 ? j->nv - 1 - i : i;
      if (j->reps[v] >= KR_BENCH_MAX_REPS) continue;
      double ms;
      if (!rep(b, v, r % b->sets, false, &ms)) return;
      j->ms[v * KR_BENCH_MAX_REPS + (size_t)j->reps[v]] = ms;
      j->reps[v]++;
    }
  }
  kr__cuda_send(fd, KR_CREC_DONE, 0, 0, "done");
}

/* ---- The parent ------------------------------------------------------------------------------------- */

static bool check_options(const KrBenchOptions *o, KrDiags *d) {
  const char *why = NULL;
  if (o->warmup < 0) why = "warmup is negative";
  else if (o->min_reps < 1 || o->min_reps > KR_BENCH_MAX_REPS) why = "min_reps must be 1 to 10000";
  else if (!(o->min_seconds >= 0) || o->min_seconds > 3600) why = "min_seconds must be 0 to 3600";
  else if (o->input_sets < 1 || o->input_sets > 64) why = "input_sets must be 1 to 64";
  else if (!(o->timeout_s >= 0)) why = "timeout_s is negative";
  if (why) kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "invalid timing options: %s", why);
  return !why;
}

KrStatus kr_cuda_bench(const KrBenchVariant *v, size_t nv, KrCudaBuffer *bufs, const bool *is_input,
                       const bool *is_inout, size_t nbufs, const KrBenchOptions *o,
                       KrBenchTimes *out, KrDiags *diags) {
  KrBenchOptions opt = o ? *o : kr_bench_options_default();
  if (opt.timeout_s == 0) opt.timeout_s = 600.0;
  if (nv == 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "nothing to time: no variants");
    return KR_ERR;
  }
  if (!check_options(&opt, diags) || !kr__cuda_check_buffers(bufs, nbufs, false, diags)) return KR_ERR;
  for (size_t i = 0; i < nv; i++) {
    char where[300];
    snprintf(where, sizeof where, "variant '%s': ", v[i].label ? v[i].label : "?");
    if (!v[i].cubin || v[i].size == 0) {
      kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "%sno cubin to time", where);
      return KR_ERR;
    }
    if (!kr__cuda_check_launches(v[i].launches, v[i].n, bufs, nbufs, where, diags)) return KR_ERR;
  }
  size_t bytes = nv * KR_BENCH_MAX_REPS * sizeof(double) + nv * sizeof(int);
  void *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "cannot time on the GPU: out of memory");
    return KR_ERR;
  }
  BenchJob job = {v, nv, bufs, is_input, is_inout, nbufs, opt, shared,
                  (int *)((char *)shared + nv * KR_BENCH_MAX_REPS * sizeof(double))};
  KrCudaOutcome oc;
  KrStatus st = kr__cuda_fork(bench_child, &job, opt.timeout_s, false, &oc, diags);
  if (st == KR_OK) st = kr__cuda_outcome(&oc, opt.timeout_s, diags);
  for (size_t i = 0; i < nv && st == KR_OK; i++)
    kr_bench_stats(job.ms + i * KR_BENCH_MAX_REPS, job.reps[i], &out[i]);
  munmap(shared, bytes);
  return st;
}
