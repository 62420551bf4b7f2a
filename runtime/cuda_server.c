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
 * (a CUDA error leaves its context unusable) costs only its own case. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend/proc.h"
#include "runtime/cuda_internal.h"

enum { MAX_MODULES = 4, MAX_LAUNCHES = 32, MAX_ARGS = 48, MAX_BUFS = 64, MAX_NAME = 256 };

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

typedef struct Mailbox {
  uint32_t module, n, nbufs;
  WireLaunch l[MAX_LAUNCHES];
  WireBuf b[MAX_BUFS];
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
    snprintf(where[i], sizeof where[i], "kernel '%s'", w->kernel);
    if (mb->n > 1)
      snprintf(where[i] + strlen(where[i]), sizeof where[i] - strlen(where[i]), " (launch %u of %u)",
               i + 1, mb->n);
    if (!find(c, mb->module, w->kernel, &fns[i]) || !kr__cuda_launch_prepare(s, fns[i], &ls[i], where[i]))
      return false;
  }
  kr__cuda_send(s->fd, KR_CREC_PHASE, -1, 0, "copying the buffers to the device");
  for (uint32_t i = 0; i < mb->nbufs; i++)
    if (bufs[i].bytes && !kr__cuda_ok(s, s->drv.MemcpyHtoD(dev[i], bufs[i].host, bufs[i].bytes),
                                      "copying buffer '%s' to the device", bufs[i].name))
      return false;
  for (uint32_t i = 0; i < mb->n; i++) {
    kr__cuda_send(s->fd, KR_CREC_PHASE, (int)i, 0, "running %s", where[i]);
    if (!kr__cuda_launch_sync(s, fns[i], &ls[i], bufs, mb->nbufs, dev, where[i])) return false;
  }
  kr__cuda_send(s->fd, KR_CREC_PHASE, -1, 0, "copying the buffers back");
  for (uint32_t i = 0; i < mb->nbufs; i++)
    if (bufs[i].bytes && !kr__cuda_ok(s, s->drv.MemcpyDtoH(bufs[i].host, dev[i], bufs[i].bytes),
                                      "copying buffer '%s' back", bufs[i].name))
      return false;
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
                     "the buffers", want);
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
    snprintf(what, sizeof what, "the %s's cubin", sv->label[i]);
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
    if (!serve(&c, sv)) return;
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
      o->timed_out = true;
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
  if (o->failed && !o->timed_out) kill(sv->pid, SIGKILL);  /* past the grace period: gone anyway */
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
static bool post(KrCudaServer *sv, size_t module, const KrCudaLaunch *ls, size_t n,
                 const KrCudaBuffer *bufs, size_t nbufs, KrDiags *d) {
  Mailbox *mb = sv->mail;
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
    mb->b[i].offset = bufs[i].bytes ? (uint64_t)(h - sv->pool) : 0;
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

KrStatus kr_cuda_server_run(KrCudaServer *sv, size_t module, const KrCudaLaunch *ls, size_t n,
                            const KrCudaBuffer *bufs, size_t nbufs, bool *hung, KrDiags *d) {
  if (hung) *hung = false;
  if (!kr__cuda_check_launches(ls, n, bufs, nbufs, "", d) || !post(sv, module, ls, n, bufs, nbufs, d))
    return KR_ERR;
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
