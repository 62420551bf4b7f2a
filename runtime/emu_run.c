/* runtime/emu_run.c: emulator device memory (guarded buffers) and running launches in a forked
 * child process (emu.h). The child reports through a pipe, one fixed-size record per event, each
 * written with one write() (atomic, under PIPE_BUF): a launch began or ended, the module stopped a
 * launch (deadlock, __trap, assertion, or a finding of the memory checker: out of bounds, unwritten
 * shared memory, a data race), a signal arrived (the handler records the address, whether it was
 * a write, and which block and thread ran), a canary changed, or printf output passed the FIFO.
 * The parent applies the time limit per launch, kills the child when it is exceeded, and turns
 * what it learnt into one error naming the kernel and, for memory, the buffer and element and
 * the source lines (emu_where.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "frontend/proc.h"
#include "runtime/emu_internal.h"

#define KR_GUARD_BYTES (64u * 1024u)
#define KR_CANARY 0xA5
#define KR_DEFAULT_TIMEOUT_S 20.0

/* ---- Buffers --------------------------------------------------------------------------------------
 * The registry of live buffers is process-wide because the API hands out bare pointers (as
 * cudaMalloc does); a mutex guards it. A run copies it before forking, so that the child and the
 * fault report see the buffers as they were when the run began. */

typedef struct Region {
  char *map;         /* the whole mapping, guards included */
  size_t map_len;
  char *base;        /* the buffer */
  size_t bytes, elem;
  char *lo, *hi;     /* the read-write span: [lo, hi), base..base+bytes inside it */
  char *name;
} Region;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static Region *g_regions;
static size_t g_nregions, g_capregions;

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

void *kr_emu_alloc_elems(size_t count, size_t elem, const char *name) {
  if (elem && count > SIZE_MAX / elem) return NULL;
  size_t bytes = count * (elem ? elem : 1), page = page_size();
  size_t guard = round_up(KR_GUARD_BYTES, page);
  size_t rounded = round_up(bytes, 16), span = round_up(rounded ? rounded : 1, page);
  size_t total = guard + span + guard;
  char *map = mmap(NULL, total, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return NULL;
  if (mprotect(map + guard, span, PROT_READ | PROT_WRITE) != 0) {
    munmap(map, total);
    return NULL;
  }
  Region r = {.map = map, .map_len = total, .bytes = bytes, .elem = elem};
  r.lo = map + guard;
  r.hi = r.lo + span;
  r.base = r.hi - rounded;
  memset(r.lo, KR_CANARY, (size_t)(r.base - r.lo));
  memset(r.base + bytes, KR_CANARY, rounded - bytes);
  r.name = strdup(name ? name : "?");
  pthread_mutex_lock(&g_lock);
  if (g_nregions == g_capregions) {
    size_t cap = g_capregions ? 2 * g_capregions : 16;
    Region *grown = realloc(g_regions, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&g_lock);
      free(r.name);
      munmap(map, total);
      return NULL;
    }
    g_regions = grown;
    g_capregions = cap;
  }
  g_regions[g_nregions++] = r;
  pthread_mutex_unlock(&g_lock);
  return r.base;
}

void *kr_emu_alloc(size_t bytes, const char *name) { return kr_emu_alloc_elems(bytes, 0, name); }

void kr_emu_free(void *p) {
  if (!p) return;
  Region r = {0};
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_nregions; i++) {
    if (g_regions[i].base != p) continue;
    r = g_regions[i];
    g_regions[i] = g_regions[--g_nregions];
    break;
  }
  if (g_nregions == 0) {
    free(g_regions);
    g_regions = NULL;
    g_capregions = 0;
  }
  pthread_mutex_unlock(&g_lock);
  if (r.map) {
    munmap(r.map, r.map_len);
    free(r.name);
  }
}

/* A copy of the registry, names included, from `a`. */
static Region *snapshot(KrArena *a, size_t *n) {
  pthread_mutex_lock(&g_lock);
  *n = g_nregions;
  Region *s = kr_arena_alloc(a, (g_nregions + 1) * sizeof *s);
  for (size_t i = 0; i < g_nregions; i++) {
    s[i] = g_regions[i];
    s[i].name = kr_arena_strdup(a, g_regions[i].name);
  }
  pthread_mutex_unlock(&g_lock);
  return s;
}

/* The first byte of the canary around `r` that changed, as an offset from r->base; false if
 * none did. */
static bool canary_broken(const Region *r, long long *off) {
  for (const char *p = r->base - 1; p >= r->lo; p--)
    if ((unsigned char)*p != KR_CANARY) {
      *off = (long long)(p - r->base);
      return true;
    }
  for (const char *p = r->base + r->bytes; p < r->base + round_up(r->bytes, 16); p++)
    if ((unsigned char)*p != KR_CANARY) {
      *off = (long long)(p - r->base);
      return true;
    }
  return false;
}

/* ---- Records from the child ---------------------------------------------------------------------------- */

enum { REC_BEGIN, REC_END, REC_DONE, REC_FAIL, REC_FAULT, REC_CANARY, REC_PRINTF_CUT };

typedef struct Record {
  int kind;
  uint32_t launch;
  int sig, code;
  uint64_t addr;
  int rw;                  /* 0: unknown, 1: read, 2: write */
  KrEmuModWhere where;
  uint64_t region;         /* REC_CANARY: which buffer of the snapshot */
  long long offset;        /*             and the byte offset from its start */
  KrEmuModResult res;      /* REC_FAIL: the module's message or memory-checker finding */
} Record;

_Static_assert(sizeof(Record) <= 4096, "a record must be written atomically to a pipe");

/* What the child's signal handler needs. Set only in the forked child, which has one thread. */
static struct {
  int fd;
  uint32_t launch;
  void (*where)(KrEmuModWhere *);
} g_child;

static void put_record(int fd, const Record *r) {
  const char *p = (const char *)r;
  size_t n = sizeof *r;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

static void on_fault(int sig, siginfo_t *si, void *ctx) {
  Record r;
  memset(&r, 0, sizeof r);
  r.kind = REC_FAULT;
  r.launch = g_child.launch;
  r.sig = sig;
  r.code = si->si_code;
  r.addr = (uint64_t)(uintptr_t)si->si_addr;
#if defined(__x86_64__)
  if (sig == SIGSEGV) {
    const ucontext_t *uc = ctx;
    r.rw = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 2 : 1;  /* the page-fault error code's W bit */
  }
#else
  (void)ctx;
#endif
  if (g_child.where) g_child.where(&r.where);
  put_record(g_child.fd, &r);
  _exit(70);
}

static void child_signals(void) {
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
  size_t alt = 64 * 1024;
  void *stack = mmap(NULL, alt, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack != MAP_FAILED) {
    stack_t ss = {.ss_sp = stack, .ss_size = alt};
    sigaltstack(&ss, NULL);
  }
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
    sigaddset(&set, sigs[i]);
  }
  sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* ---- The child --------------------------------------------------------------------------------------------- */

typedef struct Job {
  const KrEmuLaunch *l;
  const KrEmuEntry *e;
  KrEmuModLaunch ml;
} Job;

typedef struct ChildArgs {
  const KrEmuModule *m;
  const Job *jobs;         /* every round's launches, one after another */
  const size_t *round_n;   /* how many launches each round has */
  size_t nrounds;
  const Region *regs;
  size_t nregs;
} ChildArgs;

/* Runs in the child kr_proc_fork made (which ties it to its parent and sends its stdout to
 * stderr, so kernel printf never mixes into krewrite's stdout). */
static void child_main(void *ctx, int fd) {
  const ChildArgs *c = ctx;
  const KrEmuModule *m = c->m;
  const Job *jobs = c->jobs;
  const Region *regs = c->regs;
  size_t nregs = c->nregs;
  g_child.fd = fd;
  g_child.where = m->where;
  child_signals();
  static KrEmuModResult res;
  Record r;
  /* The rounds, in order, in this one process: module state carries from one to the next. */
  size_t i = 0;
  for (size_t round = 0; round < c->nrounds; round++)
  for (size_t end = i + c->round_n[round]; i < end; i++) {
    memset(&r, 0, sizeof r);
    r.launch = g_child.launch = (uint32_t)i;
    r.kind = REC_BEGIN;
    put_record(fd, &r);
    if (m->launch(&jobs[i].ml, &res) != 0) {
      r.kind = REC_FAIL;
      r.res = res;
      r.res.message[sizeof r.res.message - 1] = 0;
      fflush(stdout);
      put_record(fd, &r);
      _exit(0);
    }
    for (size_t k = 0; k < nregs; k++) {
      long long off;
      if (!canary_broken(&regs[k], &off)) continue;
      r.kind = REC_CANARY;
      r.region = k;
      r.offset = off;
      fflush(stdout);
      put_record(fd, &r);
      _exit(0);
    }
    if (res.printf_cut) {
      r.kind = REC_PRINTF_CUT;
      put_record(fd, &r);
    }
    r.kind = REC_END;
    put_record(fd, &r);
  }
  fflush(stdout);
  r.kind = REC_DONE;
  put_record(fd, &r);
  _exit(0);
}

/* ---- Messages ---------------------------------------------------------------------------------------------- */

/* The element size to count in: the buffer's own, else that of a pointer parameter of the
 * failing kernel aimed into the buffer, else 1 (bytes). */
static size_t elem_size(const Region *r, const Job *j, bool *known) {
  *known = true;
  if (r->elem) return r->elem;
  size_t best = 0;
  for (size_t i = 0; i < j->e->nparams && i < j->l->nargs; i++) {
    if (!j->e->pointee[i] || j->e->sizes[i] != sizeof(void *)) continue;
    char *p;
    memcpy(&p, j->l->args[i], sizeof p);
    if (p == r->base) return j->e->pointee[i];
    if (p > r->base && p <= r->base + r->bytes && !best) best = j->e->pointee[i];
  }
  if (best) return best;
  *known = false;
  return 1;
}

static const char *where_text(const Record *r, KrArena *a) {
  if (!r->where.in_kernel) return "";
  const KrEmuModWhere *w = &r->where;
  return kr_arena_printf(a, " (block (%u,%u,%u), thread (%u,%u,%u))", w->block[0], w->block[1],
                         w->block[2], w->thread[0], w->thread[1], w->thread[2]);
}

static const char *access_verb(int rw) { return rw == 2 ? "wrote" : rw == 1 ? "read" : "accessed"; }

static const char *out_of_bounds(const Region *r, const Job *j, long long off, const char *verb,
                                 KrArena *a) {
  bool known;
  size_t es = elem_size(r, j, &known);
  long long idx = off >= 0 ? off / (long long)es : -((-off + (long long)es - 1) / (long long)es);
  if (!known)
    return kr_arena_printf(a, "%s out of bounds: buffer '%s' byte %lld (of %zu bytes)", verb,
                           r->name, idx, r->bytes);
  return kr_arena_printf(a, "%s out of bounds: buffer '%s' element %lld (of %zu)", verb, r->name,
                         idx, r->bytes / es);
}

/* A fault address in a buffer's guard: above the end first (overruns are the usual case). */
static const Region *guard_hit(const Region *regs, size_t n, uintptr_t addr) {
  for (size_t i = 0; i < n; i++)
    if (addr >= (uintptr_t)regs[i].hi && addr < (uintptr_t)(regs[i].map + regs[i].map_len))
      return &regs[i];
  for (size_t i = 0; i < n; i++)
    if (addr >= (uintptr_t)regs[i].map && addr < (uintptr_t)regs[i].lo) return &regs[i];
  return NULL;
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGFPE: return "SIGFPE";
  case SIGILL: return "SIGILL";
  case SIGABRT: return "SIGABRT";
  case SIGTRAP: return "SIGTRAP";
  case SIGSYS: return "SIGSYS";
  case SIGKILL: return "SIGKILL";
  default: return "signal";
  }
}

static const char *fault_text(const Record *r, const Job *j, const Region *regs, size_t nregs,
                              KrArena *a) {
  const char *at = where_text(r, a);
  uintptr_t addr = (uintptr_t)r->addr;
  const KrEmuModWhere *w = &r->where;
  size_t page = page_size();
  if (r->sig == SIGSEGV || r->sig == SIGBUS) {
    if (w->in_kernel && addr >= w->stack_guard_lo && addr < w->stack_guard_hi)
      return kr_arena_printf(a, "overflowed its thread's stack (the emulator gives each thread %u KiB)%s",
                             w->stack_bytes / 1024, at);
    if (w->dyn_guard_hi && addr >= w->dyn_guard_hi - page && addr < w->dyn_guard_hi)
      return kr_arena_printf(a, "%s dynamic shared memory out of bounds: byte %lld (of %zu)%s",
                             access_verb(r->rw), (long long)(addr - w->dyn_lo),
                             (size_t)(w->dyn_hi - w->dyn_lo), at);
    const Region *g = guard_hit(regs, nregs, addr);
    if (g)
      return kr_arena_printf(a, "%s%s", out_of_bounds(g, j, (long long)(addr - (uintptr_t)g->base),
                                                      access_verb(r->rw), a), at);
    if (r->code == SI_KERNEL && addr == 0)
      return kr_arena_printf(a, "crashed (%s: a general-protection fault, from a non-canonical "
                             "address or a misaligned vector access)%s", signal_name(r->sig), at);
    return kr_arena_printf(a, "crashed (%s at address 0x%llx)%s", signal_name(r->sig),
                           (unsigned long long)addr, at);
  }
  if (r->sig == SIGFPE && r->code == FPE_INTDIV)
    return kr_arena_printf(a, "crashed (SIGFPE: integer division by zero)%s", at);
  if (r->sig == SIGILL) return kr_arena_printf(a, "crashed (SIGILL: illegal instruction)%s", at);
  if (r->sig == SIGABRT) return kr_arena_printf(a, "aborted (SIGABRT)%s", at);
  return kr_arena_printf(a, "crashed (%s %d)%s", signal_name(r->sig), r->sig, at);
}

/* ---- Findings of the memory checker ------------------------------------------------------------------
 * The module reports what and where (module offsets); names and file:line are found here. */

static const char *dim3_text(const uint32_t v[3], KrArena *a) {
  return kr_arena_printf(a, "(%u,%u,%u)", v[0], v[1], v[2]);
}

static const char *place_text(const KrEmuModule *m, uint64_t pc, KrArena *a) {
  const char *p = kr__emu_place(m, pc, a);
  return p ? kr_arena_printf(a, "at %s", p) : "at an unknown place";
}

static const char *acc_verb(int rw) {
  if (rw & KR_EMU_ACC_ATOMIC) return "updated atomically";
  if (rw & KR_EMU_ACC_ASYNC)
    return rw & KR_EMU_ACC_WRITE ? "wrote (asynchronous copy)" : "read (asynchronous copy)";
  return rw & KR_EMU_ACC_WRITE ? "wrote" : "read";
}

/* "buffer 'x' element 3", "shared memory 'tile' byte 64", "dynamic shared memory byte 8". */
static const char *finding_object(const KrEmuModule *m, const KrEmuModResult *f, const Job *j,
                                  const Region *regs, size_t nregs, KrArena *a) {
  if (f->space == KR_EMU_SPACE_GLOBAL && f->region >= 0 && (size_t)f->region < nregs) {
    const Region *g = &regs[f->region];
    bool known;
    size_t es = elem_size(g, j, &known);
    if (!known) return kr_arena_printf(a, "buffer '%s' byte %lld", g->name, (long long)f->offset);
    return kr_arena_printf(a, "buffer '%s' element %lld", g->name, (long long)f->offset / (long long)es);
  }
  if (f->space == KR_EMU_SPACE_SHARED && f->name[0])
    return kr_arena_printf(a, "shared memory '%s' byte %lld", f->name, (long long)f->offset);
  if (f->space == KR_EMU_SPACE_SHARED) {
    uint64_t inside;
    const char *name = kr__emu_symbol(m, f->sym_offset, &inside, a);
    if (name) return kr_arena_printf(a, "shared memory '%s' byte %llu", name, (unsigned long long)inside);
    return kr_arena_printf(a, "static shared memory byte %lld", (long long)f->offset);
  }
  return kr_arena_printf(a, "dynamic shared memory byte %lld", (long long)f->offset);
}

static const char *finding_text(const KrEmuModule *m, const KrEmuModResult *f, const Job *j,
                                const Region *regs, size_t nregs, KrArena *a) {
  const KrEmuModAccess *now = &f->now, *then = &f->then;
  const char *at = place_text(m, now->pc, a);
  const char *who = kr_arena_printf(a, "(block %s, thread %s)", dim3_text(now->block, a),
                                    dim3_text(now->thread, a));
  const char *verb = now->rw & KR_EMU_ACC_WRITE ? "wrote" : "read";
  if (f->kind == KR_EMU_FIND_BOUNDS && f->space == KR_EMU_SPACE_GLOBAL && f->region >= 0 &&
      (size_t)f->region < nregs)
    return kr_arena_printf(a, "%s %s %s", out_of_bounds(&regs[f->region], j, f->offset, verb, a), at, who);
  if (f->kind == KR_EMU_FIND_BOUNDS && f->space == KR_EMU_SPACE_SHARED && f->name[0])
    return kr_arena_printf(a, "%s shared memory '%s' out of bounds: byte %lld (of %llu) %s %s", verb,
                           f->name, (long long)f->offset, (unsigned long long)f->extent, at, who);
  if (f->kind == KR_EMU_FIND_BOUNDS)
    return kr_arena_printf(a, "%s %s out of bounds: byte %lld (of %llu) %s %s", verb,
                           f->space == KR_EMU_SPACE_DYNAMIC ? "dynamic shared memory" : "shared memory",
                           (long long)f->offset, (unsigned long long)f->extent, at, who);
  const char *obj = finding_object(m, f, j, regs, nregs, a);
  if (f->kind == KR_EMU_FIND_UNINIT)
    return kr_arena_printf(a, "read shared memory that no thread of block %s wrote: %s %s (thread %s)",
                           dim3_text(now->block, a), obj, at, dim3_text(now->thread, a));
  bool same_block = memcmp(now->block, then->block, sizeof now->block) == 0;
  KrDim3 bd = j->l->block;
  uint32_t ln = now->thread[0] + now->thread[1] * bd.x + now->thread[2] * bd.x * bd.y;
  uint32_t lt = then->thread[0] + then->thread[1] * bd.x + then->thread[2] * bd.x * bd.y;
  const char *between = !same_block ? "in another block (the blocks of a launch are never ordered)"
                        : ln / 32 == lt / 32 ? "with no barrier or __syncwarp between"
                                             : "with no barrier between";
  return kr_arena_printf(a, "has a data race on %s: thread %s of block %s %s %s, thread %s of block %s "
                         "%s %s %s", obj, dim3_text(then->thread, a), dim3_text(then->block, a),
                         acc_verb(then->rw), place_text(m, then->pc, a), dim3_text(now->thread, a),
                         dim3_text(now->block, a), acc_verb(now->rw), at, between);
}

/* ---- The parent --------------------------------------------------------------------------------------------- */

typedef struct Outcome {
  bool done, timed_out, reported;
  bool printf_cut;         /* a launch's printf output passed the GPU's FIFO size */
  uint32_t cut_launch;
  uint32_t launch;         /* the launch running last */
  Record last;             /* REC_FAIL, REC_FAULT or REC_CANARY when reported */
  int status;
} Outcome;

static void watch(pid_t pid, int fd, double timeout, Outcome *o) {
  double deadline = kr_now_s() + timeout;
  Record r;
  for (;;) {
    int got = kr_proc_read_record(fd, &r, sizeof r, deadline);
    if (got < 0) {
      kill(pid, SIGKILL);
      o->timed_out = true;
      break;
    }
    if (got == 0) break;
    o->launch = r.launch;
    if (r.kind == REC_BEGIN) deadline = kr_now_s() + timeout;
    else if (r.kind == REC_DONE) o->done = true;
    else if (r.kind == REC_PRINTF_CUT && !o->printf_cut) o->printf_cut = true, o->cut_launch = r.launch;
    else if (r.kind != REC_END && r.kind != REC_PRINTF_CUT) {
      o->last = r;
      o->reported = true;
      deadline = kr_now_s() + 5.0;  /* the child exits at once */
    }
  }
  while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR) {}
}

static void report(const KrEmuModule *m, const Outcome *o, const Job *jobs, const size_t *round_n,
                   size_t nrounds, const Region *regs, size_t nregs, double timeout, KrArena *a,
                   KrDiags *d) {
  const Job *j = &jobs[o->launch];
  size_t round = 0, first = 0;
  while (round + 1 < nrounds && o->launch >= first + round_n[round]) first += round_n[round++];
  const char *k = j->l->kernel;
  const char *run = round ? kr_arena_printf(a, " (run %zu of %zu)", round + 1, nrounds) : "";
  const Record *r = &o->last;
  if (o->reported && r->kind == REC_FAIL && r->res.kind != KR_EMU_FIND_NONE) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "kernel '%s'%s %s", k, run,
                finding_text(m, &r->res, j, regs, nregs, a));
  } else if (o->reported && r->kind == REC_FAIL) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "kernel '%s'%s %s", k, run, r->res.message);
  } else if (o->reported && r->kind == REC_FAULT) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "kernel '%s'%s %s", k, run, fault_text(r, j, regs, nregs, a));
  } else if (o->reported && r->kind == REC_CANARY) {
    const Region *g = &regs[r->region];
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "kernel '%s'%s %s (found after the launch)", k, run,
                out_of_bounds(g, j, r->offset, "wrote", a));
  } else if (o->timed_out) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "kernel '%s'%s did not finish within %g s (a hang, or too much work for the emulator)",
                k, run, timeout);
  } else if (WIFSIGNALED(o->status)) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "kernel '%s'%s was killed by %s (%d)", k, run,
                signal_name(WTERMSIG(o->status)), WTERMSIG(o->status));
  } else {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "kernel '%s'%s ended the emulator process (exit status %d) before it finished", k, run,
                WIFEXITED(o->status) ? WEXITSTATUS(o->status) : -1);
  }
}

/* ---- Checking the launches ------------------------------------------------------------------------------------ */

static bool check_launch(const KrEmuModule *m, const KrEmuLaunch *l, Job *j, KrDiags *d) {
  const char *k = l->kernel ? l->kernel : "(null)";
  j->l = l;
  j->e = l->kernel ? kr__emu_entry(m, l->kernel) : NULL;
  if (!j->e) {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "kernel '%s' was not built into this emulator module", k);
    return false;
  }
  if (l->nargs != j->e->nparams) {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "kernel '%s' takes %zu argument%s, but the launch passes %zu",
                k, j->e->nparams, j->e->nparams == 1 ? "" : "s", l->nargs);
    return false;
  }
  for (size_t i = 0; i < l->nargs; i++)
    if (!l->args || !l->args[i]) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "kernel '%s': argument %zu of the launch is NULL", k, i);
      return false;
    }
  KrDim3 g = l->grid, b = l->block;
  uint64_t threads = (uint64_t)b.x * b.y * b.z;
  const char *why = NULL;
  if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z) why = "a grid or block dimension is 0";
  else if (b.x > 1024 || b.y > 1024 || b.z > 64) why = "a block is at most 1024 x 1024 x 64";
  else if (threads > 1024) why = "a block has at most 1024 threads";
  else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) why = "a grid is at most 2^31-1 x 65535 x 65535";
  else if (l->shmem > KR_EMU_MAX_DYN_SMEM) why = "a block has at most 227 KiB of dynamic shared memory";
  uint64_t nblk = (uint64_t)g.x * g.y * g.z;
  for (size_t i = 0; !why && l->blocks && i < l->nblocks; i++)
    if (l->blocks[i] >= nblk) why = "a sampled block index is past the grid's last block";
  if (why) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "kernel '%s': launch <<<(%u,%u,%u), (%u,%u,%u), %zu>>> is invalid: %s", k, g.x, g.y,
                g.z, b.x, b.y, b.z, l->shmem, why);
    return false;
  }
  j->ml = (KrEmuModLaunch){.entry = j->e->fn, .args = l->args, .grid = {g.x, g.y, g.z},
                           .block = {b.x, b.y, b.z}, .shmem = l->shmem, .blocks = l->blocks,
                           .nblocks = l->blocks ? l->nblocks : 0};
  return true;
}

/* Which races a launch tracks (emu.h, KrEmuRaceCheck). */
static int races(const KrEmuModule *m, KrEmuRaceCheck mode) {
  const char *env = getenv("KR_EMU_RACE_CHECK");
  if (mode == KR_EMU_RACE_AUTO && env && strcmp(env, "on") == 0) mode = KR_EMU_RACE_ON;
  if (mode == KR_EMU_RACE_AUTO && env && strcmp(env, "off") == 0) mode = KR_EMU_RACE_OFF;
  if (mode == KR_EMU_RACE_OFF) return KR_EMU_RACES_NONE;
  return mode == KR_EMU_RACE_ON || m->syncs ? KR_EMU_RACES_ALL : KR_EMU_RACES_SHARED;
}

/* The buffers the memory checker watches in one launch, each tracked in its element size. */
static void watch_regions(Job *j, const Region *regs, size_t nregs, int race_check, KrArena *a) {
  KrEmuModRegion *t = kr_arena_alloc(a, (nregs + 1) * sizeof *t);
  for (size_t i = 0; i < nregs; i++) {
    bool known;
    t[i] = (KrEmuModRegion){.map_lo = (uintptr_t)regs[i].map,
                            .map_hi = (uintptr_t)regs[i].map + regs[i].map_len,
                            .base = (uintptr_t)regs[i].base, .bytes = regs[i].bytes,
                            .granule = elem_size(&regs[i], j, &known)};
  }
  j->ml.regions = t;
  j->ml.nregions = nregs;
  j->ml.race_check = race_check;
}

KrStatus kr_emu_run_rounds(KrEmuModule *m, const KrEmuRound *rounds, size_t nrounds,
                           const KrEmuOptions *o, KrDiags *diags) {
  KrEmuOptions opt = o ? *o : (KrEmuOptions){0};
  if (opt.timed_out) *opt.timed_out = false;
  size_t n = 0;
  for (size_t r = 0; r < nrounds; r++) n += rounds[r].n;
  if (n == 0) return KR_OK;
  double timeout = opt.timeout_s > 0 ? opt.timeout_s : KR_DEFAULT_TIMEOUT_S;
  KrArena *a = kr_arena_new();
  KrStatus st = KR_ERR;
  Job *jobs = kr_arena_alloc(a, n * sizeof *jobs);
  size_t *round_n = kr_arena_alloc(a, (nrounds + 1) * sizeof *round_n);
  size_t k = 0;
  for (size_t r = 0; r < nrounds; r++) {
    round_n[r] = rounds[r].n;
    for (size_t i = 0; i < rounds[r].n; i++, k++) {
      if (!check_launch(m, &rounds[r].launches[i], &jobs[k], diags)) goto done;
      /* The same thread order in every round, as kr_emu_run gives one round. */
      jobs[k].ml.seed = opt.seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
      jobs[k].ml.shuffle = opt.shuffle;
    }
  }
  size_t nregs;
  Region *regs = snapshot(a, &nregs);
  for (size_t i = 0; i < n; i++) watch_regions(&jobs[i], regs, nregs, races(m, opt.race_check), a);
  ChildArgs args = {m, jobs, round_n, nrounds, regs, nregs};
  int pid, rfd;
  if (kr_proc_fork(child_main, &args, "run the emulator", &pid, &rfd, diags) != KR_OK) goto done;

  Outcome out = {0};
  watch(pid, rfd, timeout, &out);
  close(rfd);
  if (opt.timed_out) *opt.timed_out = out.timed_out;
  if (out.done && !out.reported && WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0) st = KR_OK;
  else report(m, &out, jobs, round_n, nrounds, regs, nregs, timeout, a, diags);
  if (out.printf_cut)
    kr_diag_pos(diags, KR_DIAG_WARNING, NULL, 0, 0,
                "kernel '%s': printf output was cut at %u MiB, as the GPU's FIFO would",
                jobs[out.cut_launch].l->kernel, KR_EMU_PRINTF_FIFO >> 20);
done:
  kr_arena_free(a);
  return st;
}

KrStatus kr_emu_run(KrEmuModule *m, const KrEmuLaunch *launches, size_t n, const KrEmuOptions *o,
                    KrDiags *diags) {
  KrEmuRound one = {launches, n};
  return kr_emu_run_rounds(m, &one, 1, o, diags);
}
