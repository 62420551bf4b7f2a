/* runtime/cuda_server.c: one GPU child for a whole verification (cuda.h, "A GPU child for many
 * runs"). kr_cuda_run pays for a process, cuInit, a context and a module load on every call,
 * which is most of the time a verification of small cases takes; here one child opens the
 * context and loads every cubin once, then runs request after request.
 *
 * The protocol: before the fork the parent maps one MAP_SHARED region, a mailbox followed by a
 * pool of host buffers, so the child sees both at the same addresses. A request is written into
 * the mailbox (the module, the launches with their argument values, the buffers as pool offsets)
 * and announced by one byte on a socket; the child copies the buffers to one device allocation
 * of the pool's size, runs the launches, copies the buffers back and answers with the records of
 * cuda_internal.h (PHASE while it works, then DONE, or one FAIL after which it exits). The parent
 * applies the time limit per phase; past it the child is killed and the call reports a hang. A
 * child that failed or died is replaced by a new one at the next request, so one broken launch
 * (a CUDA error leaves its context unusable) costs only its own case.
 *
 * Two more kinds of request leave the buffers on the device: a run that copies nothing (the
 * buffers are where an earlier request put them), and a data request, a list of operations on
 * buffers (copies either way, poison by a byte, 16- or 32-bit pattern with cuMemsetD*, and the
 * fill module's kernels: fill, and check, whose answer the child writes back into the mailbox).
 * A request that reads what the device holds is refused once the child that held it has ended,
 * rather than run on a fresh child's uninitialised memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "runtime/cuda_internal.h"

enum { MAX_MODULES = 4, MAX_LAUNCHES = 32, MAX_ARGS = 48, MAX_BUFS = 64, MAX_NAME = 256, MAX_DATA = 256 };
enum { FILL_BLOCK = 256, FILL_MAX_BLOCKS = 1 << 16 };

#define POOL_ALIGN 256u
#define KR_SERVER_DEFAULT_TIMEOUT_S 60.0
#define KR_SERVER_MARGIN_BYTES (256ull << 20)  /* GPU memory left free for the context's own use */

typedef struct WireLaunch {
  char kernel[MAX_NAME];
  uint32_t grid[3], block[3];
  uint64_t shmem;
  uint32_t nargs;
  int32_t arg_buffer[MAX_ARGS];
  uint64_t slot[MAX_ARGS];   /* each argument's value, 8 bytes (a pointer: a host address) */
} WireLaunch;

typedef struct WireBuf {
  char name[64];
  uint64_t offset, bytes;    /* in the pool */
} WireBuf;

/* One operation on a buffer kept on the device (cuda.h, KrCudaData), offsets in the pool. */
typedef struct WireData {
  char name[64];
  uint32_t kind, pattern;
  int32_t pattern_size, gen, dtype;
  uint64_t offset, bytes, to;
  uint64_t key, count;
  double a, b;
  uint64_t first_diff;       /* written by the child */
} WireData;

/* What a request asks: launches with the buffers copied in and out, launches on the buffers as
 * the device holds them, or operations on those buffers. */
typedef enum { REQ_RUN, REQ_RUN_RESIDENT, REQ_DATA } ReqKind;

typedef struct Mailbox {
  uint32_t req, module, n, nbufs, ndata;
  WireLaunch l[MAX_LAUNCHES];
  WireBuf b[MAX_BUFS];
  WireData d[MAX_DATA];
} Mailbox;

struct KrCudaServer {
  const void *cubin[MAX_MODULES];
  size_t size[MAX_MODULES];
  const char *label[MAX_MODULES];
  size_t nmodules;
  char *map;                 /* MAP_SHARED: the mailbox, then the pool */
  size_t map_len;
  Mailbox *mail;
  char *pool;
  size_t pool_bytes, used;
  double timeout;
  int pid, rec_fd, cmd_fd, child_cmd_fd;  /* -1 when no child runs */
  double setup_s;            /* time spent starting children, in all */
  int starts;
};

/* ---- The child ----------------------------------------------------------------------------------- */

typedef struct Found {
  size_t module;
  char name[MAX_NAME];
  CUfunction f;
} Found;

typedef struct ChildState {
  KrCudaSession s;
  KrCudaModule m[MAX_MODULES];
  CUdeviceptr dpool;
  CUdeviceptr dfirst;        /* kr_fill_check's answer */
  Found found[128];
  size_t nfound;
} ChildState;

static bool find(ChildState *c, size_t module, const char *name, CUfunction *f) {
  for (size_t i = 0; i < c->nfound; i++)
    if (c->found[i].module == module && strcmp(c->found[i].name, name) == 0) return *f = c->found[i].f, true;
  if (!kr__cuda_kernel_find(&c->s, &c->m[module], name, f)) return false;
  if (c->nfound < sizeof c->found / sizeof c->found[0]) {
    Found *k = &c->found[c->nfound++];
    k->module = module;
    snprintf(k->name, sizeof k->name, "%s", name);
    k->f = *f;
  }
  return true;
}

/* One request from the mailbox; false after a FAIL was sent (the child then exits). */
static bool serve(ChildState *c, const KrCudaServer *sv) {
  const Mailbox *mb = sv->mail;
  KrCudaSession *s = &c->s;
  KrCudaBuffer bufs[MAX_BUFS];
  CUdeviceptr dev[MAX_BUFS];
  for (uint32_t i = 0; i < mb->nbufs; i++) {
    bufs[i] = (KrCudaBuffer){mb->b[i].name, sv->pool + mb->b[i].offset, (size_t)mb->b[i].bytes};
    dev[i] = c->dpool + mb->b[i].offset;
  }
  KrCudaLaunch ls[MAX_LAUNCHES];
  void *args[MAX_LAUNCHES][MAX_ARGS];
  int tie[MAX_LAUNCHES][MAX_ARGS];
  CUfunction fns[MAX_LAUNCHES];
  char where[MAX_LAUNCHES][MAX_NAME + 40];
  for (uint32_t i = 0; i < mb->n; i++) {
    const WireLaunch *w = &mb->l[i];
    for (uint32_t j = 0; j < w->nargs; j++) args[i][j] = (void *)&w->slot[j], tie[i][j] = w->arg_buffer[j];
    ls[i] = (KrCudaLaunch){w->kernel, {w->grid[0], w->grid[1], w->grid[2]},
                           {w->block[0], w->block[1], w->block[2]}, (size_t)w->shmem, args[i], tie[i],
                           w->nargs};
    snprintf(where[i], sizeof where[i], "%s '%s'", c->m[mb->module].call ? "entry" : "kernel", w->kernel);
    if (mb->n > 1)
      snprintf(where[i] + strlen(where[i]), sizeof where[i] - strlen(where[i]), " (launch %u of %u)",
               i + 1, mb->n);
    fns[i] = NULL;
    if (!c->m[mb->module].call && (!find(c, mb->module, w->kernel, &fns[i]) ||
                                   !kr__cuda_launch_prepare(s, fns[i], &ls[i], where[i])))
      return false;
  }
  bool copy = mb->req == REQ_RUN;
  if (copy) kr__cuda_send(s->fd, KR_CREC_PHASE, -1, 0, "copying the buffers to the device");
  for (uint32_t i = 0; copy && i < mb->nbufs; i++)
    if (bufs[i].bytes && !kr__cuda_ok(s, s->drv.MemcpyHtoD(dev[i], bufs[i].host, bufs[i].bytes),
                                      "copying buffer '%s' to the device", bufs[i].name))
      return false;
  for (uint32_t i = 0; i < mb->n; i++) {
    kr__cuda_send(s->fd, KR_CREC_PHASE, (int)i, 0, "running %s", where[i]);
    if (!kr__cuda_launch_sync(s, &c->m[mb->module], fns[i], &ls[i], bufs, mb->nbufs, dev, where[i])) return false;
  }
  if (copy) kr__cuda_send(s->fd, KR_CREC_PHASE, -1, 0, "copying the buffers back");
  for (uint32_t i = 0; copy && i < mb->nbufs; i++)
    if (bufs[i].bytes && !kr__cuda_ok(s, s->drv.MemcpyDtoH(bufs[i].host, dev[i], bufs[i].bytes),
                                      "copying buffer '%s' back", bufs[i].name))
      return false;
  return true;
}

/* Launches one of the fill module's kernels over `count` elements and synchronises. */
static bool fill_launch(ChildState *c, size_t module, const char *kernel, void **params, uint64_t count,
                        const char *what, const char *name) {
  KrCudaSession *s = &c->s;
  CUfunction f;
  if (!find(c, module, kernel, &f)) return false;
  uint64_t blocks = (count + FILL_BLOCK - 1) / FILL_BLOCK;
  unsigned grid = blocks > FILL_MAX_BLOCKS ? FILL_MAX_BLOCKS : blocks ? (unsigned)blocks : 1;
  return kr__cuda_ok(s, s->drv.LaunchKernel(f, grid, 1, 1, FILL_BLOCK, 1, 1, 0, NULL, params, NULL),
                     "%s buffer '%s' (launching the fill module's %s)", what, name, kernel) &&
         kr__cuda_ok(s, s->drv.CtxSynchronize(), "%s buffer '%s' (in the fill module's %s)", what,
                     name, kernel);
}

static bool set_pattern(KrCudaSession *s, CUdeviceptr at, const WireData *w) {
  switch (w->pattern_size) {
  case 1: return kr__cuda_ok(s, s->drv.MemsetD8(at, (unsigned char)w->pattern, w->bytes), "poisoning buffer '%s'", w->name);
  case 2: return kr__cuda_ok(s, s->drv.MemsetD16(at, (unsigned short)w->pattern, w->bytes / 2), "poisoning buffer '%s'", w->name);
  default: return kr__cuda_ok(s, s->drv.MemsetD32(at, w->pattern, w->bytes / 4), "poisoning buffer '%s'", w->name);
  }
}

/* One operation of a data request; false after a FAIL was sent. */
static bool data_op(ChildState *c, const KrCudaServer *sv, WireData *w) {
  KrCudaSession *s = &c->s;
  CUdeviceptr at = c->dpool + w->offset;
  unsigned long long count = w->count, key = w->key;
  double a = w->a, b = w->b;
  int gen = w->gen, dtype = w->dtype;
  void *params[8] = {&at, &count, &key, &a, &b, &gen, &dtype, &c->dfirst};
  if (!w->bytes && w->kind != KR_CUDA_DATA_CHECK) return true;
  switch ((KrCudaDataKind)w->kind) {
  case KR_CUDA_DATA_UPLOAD:
    return kr__cuda_ok(s, s->drv.MemcpyHtoD(at, sv->pool + w->offset, w->bytes), "copying buffer '%s' to the device", w->name);
  case KR_CUDA_DATA_DOWNLOAD:
    return kr__cuda_ok(s, s->drv.MemcpyDtoH(sv->pool + w->to, at, w->bytes), "copying buffer '%s' back", w->name);
  case KR_CUDA_DATA_SET: return set_pattern(s, at, w);
  case KR_CUDA_DATA_FILL: return fill_launch(c, sv->mail->module, "kr_fill", params, w->count, "filling", w->name);
  case KR_CUDA_DATA_CHECK: {
    unsigned long long none = UINT64_MAX;
    return kr__cuda_ok(s, s->drv.MemcpyHtoD(c->dfirst, &none, sizeof none), "checking buffer '%s'", w->name) &&
           fill_launch(c, sv->mail->module, "kr_fill_check", params, w->count, "checking", w->name) &&
           kr__cuda_ok(s, s->drv.MemcpyDtoH(&w->first_diff, c->dfirst, sizeof w->first_diff),
                       "checking buffer '%s'", w->name);
  }
  }
  kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "buffer '%s': unknown operation %u", w->name, w->kind);
  return false;
}

static bool serve_data(ChildState *c, const KrCudaServer *sv) {
  Mailbox *mb = sv->mail;
  static const char *const verbs[] = {"copying to the device", "copying back", "poisoning", "filling", "checking"};
  for (uint32_t i = 0; i < mb->ndata; i++) {
    WireData *w = &mb->d[i];
    kr__cuda_send(c->s.fd, KR_CREC_PHASE, -1, 0, "%s buffer '%s'", w->kind < 5 ? verbs[w->kind] : "?", w->name);
    if (!data_op(c, sv, w)) return false;
  }
  return true;
}

/* The device allocation for the pool, refused with the figures when the GPU has not that much
 * free (cuMemGetInfo, where the driver has it) rather than failing somewhere in the middle. */
static bool device_pool(ChildState *c, const KrCudaServer *sv) {
  KrCudaSession *s = &c->s;
  size_t want = sv->pool_bytes ? sv->pool_bytes : POOL_ALIGN, free_b = 0, total_b = 0;
  if (s->drv.MemGetInfo && s->drv.MemGetInfo(&free_b, &total_b) == KR_CUDA_SUCCESS &&
      (unsigned long long)want + KR_SERVER_MARGIN_BYTES > free_b) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0,
                  "the buffers of the largest case need %.1f MiB of GPU memory, but the GPU has "
                  "%.1f MiB free of %.1f MiB (less a margin of %llu MiB)", want / 1048576.0,
                  free_b / 1048576.0, total_b / 1048576.0, KR_SERVER_MARGIN_BYTES >> 20);
    return false;
  }
  return kr__cuda_ok(s, s->drv.MemAlloc(&c->dpool, want), "allocating %zu bytes of GPU memory for "
                     "the buffers", want) &&
         kr__cuda_ok(s, s->drv.MemAlloc(&c->dfirst, sizeof(uint64_t)), "allocating GPU memory");
}

static void server_child(void *ctx, int fd) {
  KrCudaServer *sv = ctx;
  close(sv->cmd_fd);
  static ChildState c;
  memset(&c, 0, sizeof c);
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "setting up the GPU");
  if (!kr__cuda_session_open(&c.s, fd)) return;
  for (size_t i = 0; i < sv->nmodules; i++) {
    char what[96];
    snprintf(what, sizeof what, "the %s's %s", sv->label[i],
             kr_cuda_is_library(sv->cubin[i], sv->size[i]) ? "entry library" : "cubin");
    kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "loading %s", what);
    if (!kr__cuda_module_load(&c.s, sv->cubin[i], sv->size[i], what, &c.m[i])) return;
  }
  if (!device_pool(&c, sv)) return;
  if (!kr__cuda_confine(&c.s)) return;   /* the GPU sandbox, once the context and modules exist */
  kr__cuda_send(fd, KR_CREC_DONE, 0, 0, "ready");
  for (;;) {
    char token;
    ssize_t got = read(sv->child_cmd_fd, &token, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;   /* the parent is done with us */
    if (!(sv->mail->req == REQ_DATA ? serve_data(&c, sv) : serve(&c, sv))) return;
    kr__cuda_send(fd, KR_CREC_DONE, 0, 0, "done");
  }
  for (size_t i = 0; i < sv->nmodules; i++) kr__cuda_module_release(&c.m[i]);
}

/* ---- The parent ---------------------------------------------------------------------------------- */

static void reap(KrCudaServer *sv, KrCudaOutcome *o) {
  if (sv->pid < 0) return;
  while (waitpid(sv->pid, &o->status, 0) < 0 && errno == EINTR) {}
  close(sv->rec_fd);
  close(sv->cmd_fd);
  close(sv->child_cmd_fd);
  sv->pid = sv->rec_fd = sv->cmd_fd = sv->child_cmd_fd = -1;
}

/* Follows the child's records until DONE (the child lives on), a FAIL (it exits), its end, or
 * the time limit of a phase (it is killed). */
static void await(KrCudaServer *sv, KrCudaOutcome *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->phase.text, sizeof o->phase.text, "waiting for the GPU process");
  double deadline = kr_now_s() + sv->timeout;
  KrCudaRecord r;
  for (;;) {
    int got = kr_proc_read_record(sv->rec_fd, &r, sizeof r, deadline);
    if (got < 0 && !o->failed) {
      kill(sv->pid, SIGKILL);
      if (got == KR_RECORD_INTERRUPTED) o->interrupted = true;
      else o->timed_out = true;
      break;
    }
    if (got <= 0) break;
    if (r.kind == KR_CREC_PHASE) {
      o->phase = r;
      deadline = kr_now_s() + sv->timeout;
    } else if (r.kind == KR_CREC_INFO) {
      o->info = r;
    } else if (r.kind == KR_CREC_DONE && !o->failed) {
      o->done = true;
      return;
    } else if (r.kind == KR_CREC_FAIL && !o->failed) {
      o->fail = r;
      o->failed = true;
      deadline = kr_now_s() + 10.0;  /* the child exits at once; the driver may take a moment */
    }
  }
  if (o->failed && !o->timed_out && !o->interrupted) kill(sv->pid, SIGKILL);  /* past the grace period: gone anyway */
  reap(sv, o);
}

static KrStatus start_child(KrCudaServer *sv, KrDiags *d) {
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "cannot start the GPU process: socketpair: %s", strerror(errno));
    return KR_ERR;
  }
  sv->cmd_fd = sp[0], sv->child_cmd_fd = sp[1];
  double t0 = kr_now_s();
  int pid, fd;
  if (kr_proc_fork(server_child, sv, "start the GPU process", &pid, &fd, d) != KR_OK) {
    close(sp[0]), close(sp[1]);
    sv->cmd_fd = sv->child_cmd_fd = -1;
    return KR_ERR;
  }
  sv->pid = pid, sv->rec_fd = fd;
  close(sv->child_cmd_fd);   /* the child's end; later forks must not keep it open */
  sv->child_cmd_fd = -1;
  sv->starts++;
  KrCudaOutcome o;
  await(sv, &o);
  sv->setup_s += kr_now_s() - t0;
  if (o.done) return KR_OK;
  kr__cuda_outcome(&o, sv->timeout, d);
  return KR_ERR;
}

KrStatus kr_cuda_server_start(const KrCudaServerModule *mods, size_t nmods, size_t pool_bytes,
                              double timeout_s, KrCudaServer **out, KrDiags *d) {
  *out = NULL;
  if (nmods == 0 || nmods > MAX_MODULES) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "a GPU process holds 1 to %d modules, not %zu",
                MAX_MODULES, nmods);
    return KR_ERR;
  }
  for (size_t i = 0; i < nmods; i++)
    if (!mods[i].cubin || !mods[i].size) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "no cubin to run on the GPU (%s)",
                  mods[i].label ? mods[i].label : "module");
      return KR_ERR;
    }
  KrCudaServer *sv = calloc(1, sizeof *sv);
  size_t head = (sizeof(Mailbox) + 4095) / 4096 * 4096;
  size_t pool = (pool_bytes + 4095) / 4096 * 4096;
  if (!sv) goto oom;
  sv->pid = sv->rec_fd = sv->cmd_fd = sv->child_cmd_fd = -1;
  sv->map_len = head + (pool ? pool : 4096);
  sv->map = mmap(NULL, sv->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sv->map == MAP_FAILED) {
    free(sv);
    goto oom;
  }
  sv->mail = (Mailbox *)sv->map;
  sv->pool = sv->map + head;
  sv->pool_bytes = pool;
  sv->timeout = timeout_s > 0 ? timeout_s : KR_SERVER_DEFAULT_TIMEOUT_S;
  sv->nmodules = nmods;
  for (size_t i = 0; i < nmods; i++) {
    sv->cubin[i] = mods[i].cubin, sv->size[i] = mods[i].size;
    sv->label[i] = mods[i].label ? mods[i].label : "module";
  }
  if (start_child(sv, d) != KR_OK) {
    kr_cuda_server_free(sv);
    return KR_ERR;
  }
  *out = sv;
  return KR_OK;
oom:
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "out of memory for %zu bytes of shared buffers", pool_bytes);
  return KR_ERR;
}

void *kr_cuda_server_alloc(KrCudaServer *sv, size_t bytes) {
  size_t at = (sv->used + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
  if (at > sv->pool_bytes || bytes > sv->pool_bytes - at) return NULL;
  sv->used = at + bytes;
  return sv->pool + at;
}

void kr_cuda_server_reset(KrCudaServer *sv) { sv->used = 0; }

double kr_cuda_server_setup_s(const KrCudaServer *sv) { return sv->setup_s; }

/* Copies one request into the mailbox; false with an error when it does not fit its limits or a
 * buffer lies outside the pool. */
static bool post(KrCudaServer *sv, ReqKind req, size_t module, const KrCudaLaunch *ls, size_t n,
                 const KrCudaBuffer *bufs, size_t nbufs, KrDiags *d) {
  Mailbox *mb = sv->mail;
  mb->req = (uint32_t)req, mb->ndata = 0;
  if (module >= sv->nmodules || n > MAX_LAUNCHES || nbufs > MAX_BUFS) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "a GPU request has module %zu of %zu, %zu launches (at "
                "most %d) and %zu buffers (at most %d)", module, sv->nmodules, n, MAX_LAUNCHES, nbufs, MAX_BUFS);
    return false;
  }
  mb->module = (uint32_t)module, mb->n = (uint32_t)n, mb->nbufs = (uint32_t)nbufs;
  for (size_t i = 0; i < nbufs; i++) {
    const char *h = bufs[i].host;
    if (bufs[i].bytes && (h < sv->pool || h > sv->pool + sv->pool_bytes ||
                          bufs[i].bytes > (size_t)(sv->pool + sv->pool_bytes - h))) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "buffer '%s' is not in the GPU process's pool "
                  "(allocate it with kr_cuda_server_alloc)", bufs[i].name ? bufs[i].name : "?");
      return false;
    }
    snprintf(mb->b[i].name, sizeof mb->b[i].name, "%s", bufs[i].name ? bufs[i].name : "?");
    /* A buffer of 0 elements keeps its place too: a pointer argument into it is translated by
     * its offset, and must land where the parent's pointer does. */
    mb->b[i].offset = h >= sv->pool && h <= sv->pool + sv->pool_bytes ? (uint64_t)(h - sv->pool) : 0;
    mb->b[i].bytes = bufs[i].bytes;
  }
  for (size_t i = 0; i < n; i++) {
    const KrCudaLaunch *l = &ls[i];
    WireLaunch *w = &mb->l[i];
    if (strlen(l->kernel) >= MAX_NAME || l->nargs > MAX_ARGS) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "kernel '%s': a GPU request takes names under %d "
                  "characters and at most %d arguments", l->kernel, MAX_NAME, MAX_ARGS);
      return false;
    }
    snprintf(w->kernel, sizeof w->kernel, "%s", l->kernel);
    w->grid[0] = l->grid.x, w->grid[1] = l->grid.y, w->grid[2] = l->grid.z;
    w->block[0] = l->block.x, w->block[1] = l->block.y, w->block[2] = l->block.z;
    w->shmem = l->shmem;
    w->nargs = (uint32_t)l->nargs;
    for (size_t j = 0; j < l->nargs; j++) {
      w->arg_buffer[j] = l->arg_buffer ? l->arg_buffer[j] : -1;
      memcpy(&w->slot[j], l->args[j], sizeof w->slot[j]);
    }
  }
  return true;
}

/* Announces the request in the mailbox to the child and follows it to its end. */
static KrStatus request(KrCudaServer *sv, bool *hung, KrDiags *d) {
  if (sv->pid < 0 && start_child(sv, d) != KR_OK) return KR_ERR;
  char token = 'r';
  ssize_t w;
  while ((w = send(sv->cmd_fd, &token, 1, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  KrCudaOutcome o;
  await(sv, &o);   /* a child that died before reading the token is seen here as its end */
  if (o.done) return KR_OK;
  if (hung) *hung = o.timed_out;
  kr__cuda_outcome(&o, sv->timeout, d);
  return KR_ERR;
}

/* A request that works on what the device holds needs the child that was given it. */
static bool still_there(const KrCudaServer *sv, KrDiags *d) {
  if (sv->pid >= 0) return true;
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "the GPU process has ended since the buffers were put on "
              "the device, so they are gone (an earlier failure ended it)");
  return false;
}

KrStatus kr_cuda_server_run(KrCudaServer *sv, size_t module, const KrCudaLaunch *ls, size_t n,
                            const KrCudaBuffer *bufs, size_t nbufs, bool *hung, KrDiags *d) {
  if (hung) *hung = false;
  if (!kr__cuda_check_launches(ls, n, bufs, nbufs, "", d) || !post(sv, REQ_RUN, module, ls, n, bufs, nbufs, d))
    return KR_ERR;
  return request(sv, hung, d);
}

KrStatus kr_cuda_server_run_resident(KrCudaServer *sv, size_t module, const KrCudaLaunch *ls, size_t n,
                                     const KrCudaBuffer *bufs, size_t nbufs, bool *hung, KrDiags *d) {
  if (hung) *hung = false;
  if (!kr__cuda_check_launches(ls, n, bufs, nbufs, "", d) ||
      !post(sv, REQ_RUN_RESIDENT, module, ls, n, bufs, nbufs, d) || !still_there(sv, d))
    return KR_ERR;
  return request(sv, hung, d);
}

/* The offset in the pool of [p, p + bytes); false with an error when it lies outside. */
static bool pool_offset(const KrCudaServer *sv, const void *p, size_t bytes, const char *name,
                        uint64_t *off, KrDiags *d) {
  const char *h = p;
  if (!bytes) return *off = 0, true;
  if (h && h >= sv->pool && h <= sv->pool + sv->pool_bytes && bytes <= (size_t)(sv->pool + sv->pool_bytes - h))
    return *off = (uint64_t)(h - sv->pool), true;
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "buffer '%s' is not in the GPU process's pool "
              "(allocate it with kr_cuda_server_alloc)", name);
  return false;
}

static bool post_data(KrCudaServer *sv, size_t fill_module, const KrCudaData *ops, size_t n, bool *reads,
                      KrDiags *d) {
  Mailbox *mb = sv->mail;
  if (fill_module >= sv->nmodules || n > MAX_DATA) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "a GPU data request has module %zu of %zu and %zu "
                "operations (at most %d)", fill_module, sv->nmodules, n, MAX_DATA);
    return false;
  }
  mb->req = REQ_DATA, mb->module = (uint32_t)fill_module, mb->n = mb->nbufs = 0, mb->ndata = (uint32_t)n;
  *reads = false;
  for (size_t i = 0; i < n; i++) {
    const KrCudaData *o = &ops[i];
    WireData *w = &mb->d[i];
    const char *name = o->name ? o->name : "?";
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%s", name);
    if (!pool_offset(sv, o->host, o->bytes, name, &w->offset, d) ||
        !pool_offset(sv, o->to ? o->to : o->host, o->bytes, name, &w->to, d))
      return false;
    uint64_t es = o->dtype == 1 || o->dtype == 2 ? 2 : o->dtype >= 4 ? 8 : 4;
    bool gen = o->kind == KR_CUDA_DATA_FILL || o->kind == KR_CUDA_DATA_CHECK;
    if ((gen && o->count * es > o->bytes) || (o->kind == KR_CUDA_DATA_SET && o->pattern_size != 1 &&
        o->pattern_size != 2 && o->pattern_size != 4) || (unsigned)o->kind > KR_CUDA_DATA_CHECK) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "buffer '%s': a GPU data operation that does not fit "
                  "the buffer (%zu bytes)", name, o->bytes);
      return false;
    }
    w->kind = (uint32_t)o->kind, w->pattern = o->pattern, w->pattern_size = o->pattern_size;
    w->gen = o->gen, w->dtype = o->dtype, w->bytes = o->bytes;
    w->key = o->key, w->count = o->count, w->a = o->a, w->b = o->b;
    w->first_diff = UINT64_MAX;
    *reads = *reads || o->kind == KR_CUDA_DATA_DOWNLOAD || o->kind == KR_CUDA_DATA_CHECK;
  }
  return true;
}

KrStatus kr_cuda_server_data(KrCudaServer *sv, size_t fill_module, KrCudaData *ops, size_t n, KrDiags *d) {
  bool reads;
  if (!post_data(sv, fill_module, ops, n, &reads, d) || (reads && !still_there(sv, d))) return KR_ERR;
  KrStatus st = request(sv, NULL, d);
  for (size_t i = 0; i < n; i++) ops[i].first_diff = st == KR_OK ? sv->mail->d[i].first_diff : UINT64_MAX;
  return st;
}

void kr_cuda_server_free(KrCudaServer *sv) {
  if (!sv) return;
  if (sv->pid >= 0) {
    close(sv->cmd_fd);   /* the child sees the end of its requests and exits */
    sv->cmd_fd = -1;
    KrCudaRecord r;
    double deadline = kr_now_s() + 10.0;
    int got;
    while ((got = kr_proc_read_record(sv->rec_fd, &r, sizeof r, deadline)) > 0) {}
    if (got < 0) kill(sv->pid, SIGKILL);
    int status;
    while (waitpid(sv->pid, &status, 0) < 0 && errno == EINTR) {}
    close(sv->rec_fd);
    close(sv->child_cmd_fd);
  }
  if (sv->map && sv->map != MAP_FAILED) munmap(sv->map, sv->map_len);
  free(sv);
}
