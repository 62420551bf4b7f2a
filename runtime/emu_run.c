/* runtime/emu_run.c: emulator device memory (guarded buffers) and running launches in a forked
 * child process (emu.h), which enters the sandbox (sandbox.h) and only then loads the module; the
 * probe child that learns the kernels' signatures the same way. A child reports through a pipe,
 * one fixed-size record per event, each written with one write() (atomic, under PIPE_BUF): a
 * launch began or ended, the module stopped a launch (deadlock, __trap, assertion, or a finding
 * of the memory checker: out of bounds, unwritten shared memory, a data race), a signal arrived
 * (the handler records the address, whether it was a write, and which block and thread ran; for
 * SIGSYS, the system call the sandbox stopped and the innermost frame in the module), a canary
 * changed, or printf output passed the FIFO. The parent applies the time limit per launch, kills
 * the child when it is exceeded, and turns what it learnt into one error naming the kernel and,
 * for memory, the buffer and element and the source lines (emu_where.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "base/proc.h"
#include "runtime/emu_internal.h"
#include "runtime/sandbox.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);  /* libstdc++ */

#define KR_GUARD_BYTES (64u * 1024u)
#define KR_CANARY 0xA5
#define KR_DEFAULT_TIMEOUT_S 20.0
/* The probe only loads the module and reads its signatures: a global constructor that computes
 * for seconds is hostile, or broken. The CPU limit stops a busy loop; the wall clock, sleeping. */
#define KR_PROBE_CPU_S 5.0
#define KR_PROBE_TIMEOUT_S 60.0
/* A call the filter traps while SIGSYS is blocked kills the process instead: the kernel cannot
 * run the handler. system() and posix_spawn() block every signal around their clone. */
#define KR_BLOCKED_SIGSYS "tried to start a program, or make another system call the sandbox " \
  "forbids, with signals blocked (as system() and posix_spawn() do); the sandbox ended it (SIGSYS)"

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

enum { REC_BEGIN, REC_END, REC_DONE, REC_FAIL, REC_FAULT, REC_CANARY, REC_PRINTF_CUT, REC_SIG, REC_DAMAGED,
       REC_UNDEFINED, REC_REGION };

typedef struct Record {
  int kind;
  uint32_t launch;         /* REC_SIG: the entry */
  int sig, code;
  uint64_t addr;
  int rw;                  /* 0: unknown, 1: read, 2: write */
  int loading;             /* REC_FAULT: while the module loaded (its global constructors ran) */
  KrEmuModWhere where;
  KrSandboxTrap trap;      /* REC_FAULT by SIGSYS: the system call the sandbox stopped */
  uint64_t mod_off;        /* REC_FAULT: the innermost frame in the module, as an offset in it */
  int has_off;
  uint64_t addr_off;       /* REC_FAULT by SIGSEGV or SIGBUS at an address in the module's own */
  int addr_in_module;      /* mapping (a slot of an undefined symbol): the address as an offset */
  int fetched;             /* the fault was the jump to that address (a call), not a load or store */
  uint64_t region;         /* REC_CANARY: which buffer of the snapshot; REC_SIG: first param */
  long long offset;        /* REC_CANARY: the byte offset from its start; REC_SIG: param count */
  KrEmuModResult res;      /* REC_FAIL: the module's message or memory-checker finding */
  /* A host entry's launch (REC_BEGIN): the kernel's entry, the line that launched it, its
   * configuration and the call (round) it belongs to. */
  uint32_t kernel, round;
  int line;
  uint32_t grid[3], block[3];
  uint64_t rmap, rmap_len, rbase, rbytes, rlo, rhi;   /* REC_REGION: a cudaMalloc of the entry (text: its name) */
  char text[sizeof(KrEmuModResult)];   /* REC_DAMAGED, REC_FAIL before the module ran; REC_SIG;
                                          REC_UNDEFINED: the symbol the loader did not find */
} Record;

/* REC_SIG: up to this many (sizeof, sizeof *p) pairs of one entry in one record's text. */
#define KR_SIG_CHUNK (sizeof(KrEmuModResult) / (2 * sizeof(uint64_t)))

_Static_assert(sizeof(Record) <= 4096, "a record must be written atomically to a pipe");

/* What the child's signal handler needs. Set only in the forked child, which has one thread. */
static struct {
  int fd;
  uint32_t launch;
  int loading;
  const char *so;
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

/* The module's code: its executable segments, found through the loader's list (which holds the
 * module from the moment it is mapped, so also while its constructors run). */
typedef struct Text {
  uintptr_t lo[4], hi[4], base;
  int n;
  uintptr_t end;           /* of the module's last segment */
} Text;

static int text_of(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  Text *t = ctx;
  if (!info->dlpi_name || strcmp(info->dlpi_name, g_child.so) != 0) return 0;
  t->base = (uintptr_t)info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && t->base + ph->p_vaddr + ph->p_memsz > t->end)
      t->end = t->base + ph->p_vaddr + ph->p_memsz;
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || t->n == 4) continue;
    t->lo[t->n] = t->base + ph->p_vaddr;
    t->hi[t->n++] = t->base + ph->p_vaddr + ph->p_memsz;
  }
  return 1;
}

/* A return address (minus one: inside the call instruction, on the line that made the call). */
static bool in_text(const Text *t, uintptr_t pc, Record *r) {
  for (int i = 0; i < t->n; i++) {
    if (pc < t->lo[i] || pc >= t->hi[i]) continue;
    r->mod_off = pc - t->base;
    r->has_off = 1;
    return true;
  }
  return false;
}

static uintptr_t program_counter(const void *ctx) {
  const ucontext_t *uc = ctx;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#else
  (void)uc;
  return 0;
#endif
}

/* Where a call returns to, on machines that keep it in a register (aarch64's x30); else 0. */
static uintptr_t link_register(const void *ctx) {
#if defined(__aarch64__)
  const ucontext_t *uc = ctx;
  return (uintptr_t)uc->uc_mcontext.regs[30];
#else
  (void)ctx;
  return 0;
#endif
}

static uintptr_t stack_pointer(const void *ctx) {
  const ucontext_t *uc = ctx;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.sp;
#else
  (void)uc;
  return 0;
#endif
}

/* The innermost frame that lies in the module: `pc` when it does (a load or store of the module's
 * code), else a caller. A trapped call sits in the C library, called from the kernel (or from a
 * global constructor). The unwinder finds the caller, unless a frame on the way has no unwind
 * information (glibc's clone, under system()); then the first word above the stack pointer that
 * points into the module's code is taken for the return address, read with process_vm_readv so
 * that the end of the stack is a short read, not a fault. A call of an undefined symbol's slot
 * sits in the slot, whose bytes the unwinder would read (a fault in the handler): `unwind` is
 * false then, and the return address is the word at the stack pointer. backtrace() was called
 * once before the sandbox, so that its unwinder is loaded already. */
static void locate(Record *r, const void *ctx, uintptr_t pc, bool unwind) {
  Text t = {0};
  dl_iterate_phdr(text_of, &t);
  if (t.n == 0) return;
  if (pc && in_text(&t, pc, r)) return;
  void *pcs[64];
  int n = unwind ? backtrace(pcs, 64) : 0;
  for (int i = 0; i < n; i++)
    if (in_text(&t, (uintptr_t)pcs[i] - 1, r)) return;
  uintptr_t sp = stack_pointer(ctx);
  uint64_t words[512];
  for (size_t k = 0; sp && k < 16; k++) {
    struct iovec local = {words, sizeof words}, remote = {(void *)(sp + k * sizeof words), sizeof words};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    for (ssize_t w = 0; w < got / 8; w++)
      if (words[w] && in_text(&t, (uintptr_t)words[w] - 1, r)) return;
    if (got < (ssize_t)sizeof words) return;
  }
}

/* A SIGSEGV or SIGBUS at an address in the module's own mapping: the slot of a symbol the .cu uses
 * but does not define (kr_emu_abi.h), which the parent looks up; the place that used it (for a
 * call, the return address: in the link register, or the word at the stack pointer). */
static void in_module(Record *r, const void *ctx) {
  Text t = {0};
  dl_iterate_phdr(text_of, &t);
  if (t.n == 0 || r->addr < t.base || r->addr >= t.end) return;
  uintptr_t pc = program_counter(ctx), lr = link_register(ctx);
  r->addr_off = r->addr - t.base;
  r->addr_in_module = 1;
  r->fetched = pc == (uintptr_t)r->addr;
  locate(r, ctx, r->fetched ? (lr ? lr - 1 : 0) : pc, !r->fetched);
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
  r.loading = g_child.loading;
  if (sig == SIGSYS) kr_sandbox_trap_read(si, ctx, &r.trap);
  if (sig == SIGSYS || sig == SIGXCPU) locate(&r, ctx, r.trap.pc ? (uintptr_t)r.trap.pc - 1 : 0, true);
  if (sig == SIGSEGV || sig == SIGBUS) in_module(&r, ctx);
  if (g_child.where) g_child.where(&r.where);
  put_record(g_child.fd, &r);
  _exit(70);
}

static void child_signals(void) {
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU};
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
  size_t index;            /* of the entry: the module exports it as kr_entry_<index> */
  KrEmuModLaunch ml;       /* .entry is resolved in the child, which alone loads the module */
} Job;

typedef struct ChildArgs {
  const KrEmuModule *m;
  Job *jobs;               /* every round's launches, one after another */
  const size_t *round_n;   /* how many launches each round has */
  size_t nrounds;
  const Region *regs;
  size_t nregs;
  KrSandboxPolicy policy;
  const KrEmuEntryCall *calls;   /* a host entry's run (kr_emu_run_entry): one call per round */
  uint64_t seed;
  int shuffle, races;
} ChildArgs;

/* A one-line failure for the parent (REC_FAIL, or REC_DAMAGED when the file is not a module of
 * this krewrite), then the end of the child. */
static _Noreturn void fail(int fd, int kind, const char *fmt, const char *arg) {
  Record r;
  memset(&r, 0, sizeof r);
  r.kind = kind;
  snprintf(r.text, sizeof r.text, fmt, arg ? arg : "");
  memcpy(r.res.message, r.text, sizeof r.res.message);   /* REC_FAIL is reported from res */
  r.res.message[sizeof r.res.message - 1] = 0;
  fflush(stdout);
  put_record(fd, &r);
  _exit(0);
}

static void *need(void *dl, const char *name, int fd) {
  void *p = dlsym(dl, name);
  if (!p) fail(fd, REC_DAMAGED, "the emulator module lacks '%s'", name);
  return p;
}

/* Signal handlers, the sandbox, then the module: from here on the child runs untrusted code,
 * its global constructors first. Returns the handle; any failure ends the child. */
static void *enter_and_load(const KrEmuModule *m, const KrSandboxPolicy *p, int fd) {
  g_child.fd = fd;
  g_child.so = m->so;
  child_signals();
  void *warm[1];
  backtrace(warm, 1);  /* loads the unwinder now, while files may still be opened freely */
  char why[256];
  if (kr_sandbox_enter(p, NULL, why, sizeof why) != KR_OK) fail(fd, REC_FAIL, "%s", why);
  g_child.loading = 1;
  void *dl = dlopen(m->so, RTLD_NOW | RTLD_LOCAL);
  g_child.loading = 0;
  if (!dl) {
    /* Every symbol the .cu does not define has a slot (emu.c), so what the loader misses is one
     * a library the module was linked with no longer has: built again, it gets a slot. */
    const char *err = dlerror(), *sym = err ? strstr(err, "undefined symbol: ") : NULL;
    if (sym) fail(fd, REC_UNDEFINED, "%s", sym + strlen("undefined symbol: "));
    fail(fd, REC_DAMAGED, "cannot load the emulator module: %s", err);
  }
  int (*abi)(void) = (int (*)(void))need(dl, "kr_emu_abi", fd);
  if (abi() != KR_EMU_ABI) fail(fd, REC_DAMAGED, "not an emulator module of this krewrite%s", NULL);
  g_child.where = (void (*)(KrEmuModWhere *))need(dl, "kr_emu_where", fd);
  return dl;
}

static void *entry_fn(void *dl, size_t index, int fd) {
  char name[64];
  snprintf(name, sizeof name, "kr_entry_%zu", index);
  return need(dl, name, fd);
}

/* The cluster shape of entry `index` when its kernel has __cluster_dims__ (the view exports
 * kr_entry_<index>_cluster then); else none. */
static void cluster_dims(void *dl, size_t index, uint32_t out[3]) {
  char name[64];
  snprintf(name, sizeof name, "kr_entry_%zu_cluster", index);
  void (*fn)(uint32_t *) = (void (*)(uint32_t *))dlsym(dl, name);
  out[0] = out[1] = out[2] = 1;
  if (fn) fn(out);
}

/* Runs in the child kr_proc_fork made (which ties it to its parent and sends its stdout to
 * stderr, so kernel printf never mixes into krewrite's stdout). */
static void child_main(void *ctx, int fd) {
  const ChildArgs *c = ctx;
  void *dl = enter_and_load(c->m, &c->policy, fd);
  int (*launch)(const KrEmuModLaunch *, KrEmuModResult *) =
    (int (*)(const KrEmuModLaunch *, KrEmuModResult *))need(dl, "kr_emu_launch", fd);
  Job *jobs = c->jobs;  /* the child's own copy of the parent's memory */
  size_t n = 0;
  for (size_t round = 0; round < c->nrounds; round++) n += c->round_n[round];
  for (size_t i = 0; i < n; i++) {
    jobs[i].ml.entry = (void (*)(void **))entry_fn(dl, jobs[i].index, fd);
    cluster_dims(dl, jobs[i].index, jobs[i].ml.cluster);
  }
  const Region *regs = c->regs;
  size_t nregs = c->nregs;
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
    if (launch(&jobs[i].ml, &res) != 0) {
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

/* ---- The child of a host entry point ---------------------------------------------------------------
 * The module's kr_emu_call_entry runs the entry; each launch comes back through kr_emu_host_hooks
 * to host_launch below, which runs it as child_main runs a spec launch, and each cudaMalloc to
 * host_alloc, a guarded buffer the memory checker watches from then on. */

#define KR_GOLDEN 0x9E3779B97F4A7C15ull

static struct {
  int (*launch)(const KrEmuModLaunch *, KrEmuModResult *);
  void *dl;
  void **entries;           /* kr_entry_<i>, to know which kernel a launch runs */
  size_t nentries;
  Region *regs;             /* the buffers: the run's, then the entry's cudaMalloc's */
  size_t nregs, cap;
  KrEmuModRegion *watched;  /* the same for the memory checker */
  uint64_t seed;
  int shuffle, races;
  uint32_t round, in_round, count;
  size_t nallocs;
} g_host;

/* Why a launch configuration is one the GPU refuses, or NULL. */
static const char *launch_invalid(KrDim3 g, KrDim3 b, size_t shmem) {
  uint64_t threads = (uint64_t)b.x * b.y * b.z;
  if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z) return "a grid or block dimension is 0";
  if (b.x > 1024 || b.y > 1024 || b.z > 64) return "a block is at most 1024 x 1024 x 64";
  if (threads > 1024) return "a block has at most 1024 threads";
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) return "a grid is at most 2^31-1 x 65535 x 65535";
  if (shmem > KR_EMU_MAX_DYN_SMEM) return "a block has at most 227 KiB of dynamic shared memory";
  return NULL;
}

static bool host_watch_rebuild(void) {
  KrEmuModRegion *t = realloc(g_host.watched, (g_host.nregs + 1) * sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < g_host.nregs; i++) {
    const Region *r = &g_host.regs[i];
    t[i] = (KrEmuModRegion){.map_lo = (uintptr_t)r->map, .map_hi = (uintptr_t)r->map + r->map_len,
                            .base = (uintptr_t)r->base, .bytes = r->bytes, .granule = r->elem ? r->elem : 1};
  }
  g_host.watched = t;
  return true;
}

static _Noreturn void host_stop(Record *r) {
  fflush(stdout);
  put_record(g_child.fd, r);
  _exit(0);
}

static int host_launch(void (*entry)(void **), void **args, const uint32_t *grid, const uint32_t *block, size_t shmem,
                       int line) {
  size_t k = 0;
  while (k < g_host.nentries && g_host.entries[k] != (void *)entry) k++;
  Record r;
  memset(&r, 0, sizeof r);
  r.launch = g_child.launch = g_host.count++;
  r.kind = REC_BEGIN;
  r.kernel = (uint32_t)k, r.round = g_host.round, r.line = line;
  memcpy(r.grid, grid, sizeof r.grid);
  memcpy(r.block, block, sizeof r.block);
  put_record(g_child.fd, &r);
  const char *why = k == g_host.nentries ? "the module launched a kernel it does not export"
                    : launch_invalid((KrDim3){grid[0], grid[1], grid[2]}, (KrDim3){block[0], block[1], block[2]}, shmem);
  if (why) {
    r.kind = REC_FAIL;
    snprintf(r.res.message, sizeof r.res.message, "launch <<<(%u,%u,%u), (%u,%u,%u), %zu>>> is invalid: %s", grid[0],
             grid[1], grid[2], block[0], block[1], block[2], shmem, why);
    host_stop(&r);
  }
  KrEmuModLaunch ml = {.entry = entry, .args = args, .grid = {grid[0], grid[1], grid[2]},
                       .block = {block[0], block[1], block[2]}, .shmem = shmem,
                       .seed = g_host.seed ^ (KR_GOLDEN * (g_host.in_round++ + 1)), .shuffle = g_host.shuffle,
                       .regions = g_host.watched, .nregions = g_host.nregs};
  /* As in kr_emu_run_rounds: races on global memory in the first round only. */
  ml.race_check = g_host.round == 0 || g_host.races != KR_EMU_RACES_ALL ? g_host.races : KR_EMU_RACES_SHARED;
  cluster_dims(g_host.dl, k, ml.cluster);
  static KrEmuModResult res;
  if (g_host.launch(&ml, &res) != 0) {
    r.kind = REC_FAIL;
    r.res = res;
    r.res.message[sizeof r.res.message - 1] = 0;
    host_stop(&r);
  }
  for (size_t i = 0; i < g_host.nregs; i++) {
    long long off;
    if (!canary_broken(&g_host.regs[i], &off)) continue;
    r.kind = REC_CANARY;
    r.region = i;
    r.offset = off;
    host_stop(&r);
  }
  if (res.printf_cut) {
    r.kind = REC_PRINTF_CUT;
    put_record(g_child.fd, &r);
  }
  r.kind = REC_END;
  put_record(g_child.fd, &r);
  return 0;
}

static void *host_alloc(size_t bytes) {
  char name[64];
  snprintf(name, sizeof name, "cudaMalloc #%zu of the entry", ++g_host.nallocs);
  void *p = kr_emu_alloc_elems(bytes, 0, name);
  if (!p) return NULL;
  if (g_host.nregs == g_host.cap) {
    size_t cap = 2 * g_host.cap + 8;
    Region *grown = realloc(g_host.regs, cap * sizeof *grown);
    if (!grown) return NULL;
    g_host.regs = grown, g_host.cap = cap;
  }
  pthread_mutex_lock(&g_lock);
  Region r = g_regions[g_nregions - 1];
  pthread_mutex_unlock(&g_lock);
  g_host.regs[g_host.nregs++] = r;
  if (!host_watch_rebuild()) return NULL;
  Record rec;
  memset(&rec, 0, sizeof rec);
  rec.kind = REC_REGION;
  rec.rmap = (uintptr_t)r.map, rec.rmap_len = r.map_len, rec.rbase = (uintptr_t)r.base, rec.rbytes = r.bytes;
  rec.rlo = (uintptr_t)r.lo, rec.rhi = (uintptr_t)r.hi;
  snprintf(rec.text, sizeof rec.text, "%s", r.name);
  put_record(g_child.fd, &rec);
  return p;
}

/* Runs in the child of kr_emu_run_entry: the entry once per call, each on its buffers. */
static void child_entry_main(void *ctx, int fd) {
  const ChildArgs *c = ctx;
  void *dl = enter_and_load(c->m, &c->policy, fd);
  g_host.dl = dl;
  g_host.launch = (int (*)(const KrEmuModLaunch *, KrEmuModResult *))need(dl, "kr_emu_launch", fd);
  void (*call)(void **) = (void (*)(void **))need(dl, "kr_emu_call_entry", fd);
  KrEmuHostHooks *hooks = need(dl, "kr_emu_host_hooks", fd);
  g_host.nentries = c->m->nentries;
  g_host.entries = calloc(g_host.nentries + 1, sizeof *g_host.entries);
  g_host.cap = c->nregs + 8;
  g_host.regs = calloc(g_host.cap, sizeof *g_host.regs);
  if (!g_host.entries || !g_host.regs) fail(fd, REC_FAIL, "out of memory to run the entry%s", NULL);
  for (size_t i = 0; i < g_host.nentries; i++) g_host.entries[i] = entry_fn(dl, i, fd);
  memcpy(g_host.regs, c->regs, c->nregs * sizeof *g_host.regs);
  g_host.nregs = c->nregs;
  if (!host_watch_rebuild()) fail(fd, REC_FAIL, "out of memory to run the entry%s", NULL);
  g_host.seed = c->seed, g_host.shuffle = c->shuffle, g_host.races = c->races;
  hooks->launch = host_launch;
  hooks->alloc = host_alloc;
  for (size_t r = 0; r < c->nrounds; r++) {
    g_host.round = (uint32_t)r, g_host.in_round = 0;
    call(c->calls[r].args);
  }
  Record rec;
  memset(&rec, 0, sizeof rec);
  fflush(stdout);
  rec.kind = REC_DONE;
  put_record(fd, &rec);
  _exit(0);
}

/* The probe: loads the module in the sandbox and sends each entry's signature (REC_SIG records,
 * KR_SIG_CHUNK parameters each), then REC_DONE. */
static void probe_main(void *ctx, int fd) {
  const ChildArgs *c = ctx;
  const KrEmuModule *m = c->m;
  void *dl = enter_and_load(m, &c->policy, fd);
  need(dl, "kr_emu_launch", fd);
  Record r;
  for (size_t i = 0; i < m->nentries; i++) {
    entry_fn(dl, i, fd);
    char name[64];
    snprintf(name, sizeof name, "kr_entry_%zu_sig", i);
    size_t (*sig)(size_t *, size_t *, size_t) = (size_t (*)(size_t *, size_t *, size_t))need(dl, name, fd);
    size_t np = sig(NULL, NULL, 0);
    size_t *sizes = calloc(np + 1, sizeof *sizes), *pointee = calloc(np + 1, sizeof *pointee);
    if (!sizes || !pointee) fail(fd, REC_FAIL, "out of memory reading the signatures%s", NULL);
    sig(sizes, pointee, np);
    for (size_t k = 0; k == 0 || k < np; k += KR_SIG_CHUNK) {
      memset(&r, 0, sizeof r);
      r.kind = REC_SIG;
      r.launch = (uint32_t)i;
      r.region = k;
      r.offset = (long long)np;
      uint64_t *pairs = (uint64_t *)(void *)r.text;
      for (size_t j = 0; j < KR_SIG_CHUNK && k + j < np; j++) {
        pairs[2 * j] = sizes[k + j];
        pairs[2 * j + 1] = pointee[k + j];
      }
      put_record(fd, &r);
    }
    free(sizes);
    free(pointee);
  }
  memset(&r, 0, sizeof r);
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
  case SIGXCPU: return "SIGXCPU";
  case SIGXFSZ: return "SIGXFSZ";
  case SIGKILL: return "SIGKILL";
  default: return "signal";
  }
}

/* " at k.cu:14" for the module frame the child found, when the module has a line table. */
static const char *line_text(const Record *r, const KrEmuModule *m, KrArena *a) {
  const char *place = r->has_off ? kr__emu_place(m, r->mod_off, a) : NULL;
  return place ? kr_arena_printf(a, " at %s", place) : "";
}

/* What the sandbox stopped: a system call (SIGSYS) or the CPU limit (SIGXCPU); NULL otherwise. */
static const char *sandbox_text(const Record *r, const KrEmuModule *m, const KrSandboxPolicy *p,
                                KrArena *a) {
  if (r->sig == SIGSYS)
    return kr_arena_printf(a, "tried to %s%s%s", kr_sandbox_trap_text(&r->trap, p, a),
                           line_text(r, m, a), where_text(r, a));
  if (r->sig == SIGXCPU)
    return kr_arena_printf(a, "tried to use more than %g s of CPU time (the sandbox's limit)%s%s",
                           p->cpu_s, line_text(r, m, a), where_text(r, a));
  return NULL;
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

/* ---- Symbols the .cu uses but does not define -------------------------------------------------------
 * Each has a slot that faults (emu.c, kr_emu_abi.h); a fault in one is told by its name, found
 * with nm over the module (run only then), and by why it has no definition. */

/* The symbol, demangled, whose slot holds module offset `off`: a symbol of the slot's size that
 * covers it, between the bounds the linker gave the section. NULL when `off` is in none. */
static const char *slot_symbol(const KrEmuModule *m, uint64_t off, KrArena *a) {
  const char *argv[] = {"nm", "-C", "-S", "--defined-only", m->so, NULL};
  KrBuf out = {0};
  KrProcResult pr;
  bool ran = kr_proc_run(argv, NULL, 20.0, &out, NULL, &pr) == KR_OK && !pr.timed_out &&
             WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0 && out.data;
  char *text = ran ? kr_arena_strndup(a, out.data, out.len) : NULL;
  kr_buf_free(&out);
  unsigned long long lo = 0, hi = 0;
  const char *name = NULL;
  for (char *s = text, *e; s && *s; s = e ? e + 1 : NULL) {
    if ((e = strchr(s, '\n'))) *e = 0;
    char *q;
    unsigned long long at = strtoull(s, &q, 16), size = 0;
    if (q == s || *q != ' ') continue;
    char *p = q + 1;
    if (p[0] && p[1] != ' ') size = strtoull(p, &q, 16), p = q + 1;  /* "address size type name" */
    if (!p[0] || p[1] != ' ') continue;
    const char *sym = p + 2;
    if (strcmp(sym, "__start_" KR_EMU_MISSING_SECTION) == 0) lo = at;
    else if (strcmp(sym, "__stop_" KR_EMU_MISSING_SECTION) == 0) hi = at;
    else if (size == KR_EMU_MISSING_SLOT && off >= at && off < at + size) name = sym;
  }
  return name && off >= lo && off < hi ? name : NULL;
}

/* Why `name` has no definition: the host API of a library that the stand-in headers declare so
 * that host code compiles, or a function or variable of another file. */
static const char *missing_why(const char *name, KrArena *a) {
  static const struct { const char *prefix, *lib; } libs[] = {
    {"cublas", "cuBLAS"}, {"curand", "cuRAND"}, {"cufft", "cuFFT"}, {"cusparse", "cuSPARSE"},
    {"cusolver", "cuSOLVER"}, {"nvtx", "NVTX"}, {"cuda", "the CUDA runtime"},
  };
  const char *lib = strstr(name, "cub::") ? "CUB" : NULL;
  for (size_t i = 0; !lib && i < sizeof libs / sizeof libs[0]; i++)
    if (strncmp(name, libs[i].prefix, strlen(libs[i].prefix)) == 0) lib = libs[i].lib;
  if (!lib && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z') lib = "the CUDA driver";
  if (lib)
    return kr_arena_printf(a, "a host call into %s, which the emulator does not make: it runs the kernels, "
                           "and krewrite does the host's allocations, copies and launches", lib);
  return "which is declared but not defined: the emulator builds the .cu alone, linked with the C and "
         "C++ standard libraries";
}

/* "called 'wall_time()' at k.cu:40, which is declared but not defined: …" for a fault in a slot;
 * NULL for any other fault. */
static const char *missing_text(const Record *r, const KrEmuModule *m, KrArena *a) {
  const char *name = r->addr_in_module ? slot_symbol(m, r->addr_off, a) : NULL;
  if (!name) return NULL;
  const char *verb = r->fetched ? "called" : r->rw == 2 ? "wrote" : r->rw == 1 ? "read" : "used";
  return kr_arena_printf(a, "%s '%s'%s, %s%s", verb, name, line_text(r, m, a), missing_why(name, a),
                         where_text(r, a));
}

/* The loader's complaint about the module, with the cache's file named as what it is. */
static const char *load_text(const Record *r, const KrEmuModule *m, KrArena *a) {
  if (r->kind == REC_UNDEFINED) {
    int status;
    const char *sym = kr_arena_strndup(a, r->text, strcspn(r->text, ", "));  /* ", version …" */
    char *d = __cxa_demangle(sym, NULL, NULL, &status);
    const char *name = kr_arena_strdup(a, d ? d : sym);
    free(d);
    return kr_arena_printf(a, "the emulator module could not be loaded: it uses '%s', which nothing it "
                           "was linked with defines", name);
  }
  KrBuf b = {0};  /* the loader's "<file>: why" without the file; elsewhere "the module" */
  size_t n = strlen(m->so);
  for (const char *s = r->text, *hit; *s; s = hit + n) {
    if (!(hit = strstr(s, m->so))) {
      kr_buf_puts(&b, s);
      break;
    }
    kr_buf_append(&b, s, (size_t)(hit - s));
    if (strncmp(hit + n, ": ", 2) == 0) hit += 2;
    else kr_buf_puts(&b, "the module");
  }
  const char *t = kr_arena_strdup(a, b.data ? b.data : "");
  kr_buf_free(&b);
  return t;
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
  if (f->kind == KR_EMU_FIND_MISALIGNED)
    return kr_arena_printf(a, "%s at a misaligned address (its type needs %llu-byte alignment): %s %s %s (the GPU "
                           "stops such a launch)", verb, (unsigned long long)f->size, obj, at, who);
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
  bool interrupted;        /* Ctrl-C (KR_RECORD_INTERRUPTED): the child was killed, not timed out */
  bool printf_cut;         /* a launch's printf output passed the GPU's FIFO size */
  uint32_t cut_launch;
  uint32_t launch;         /* the launch running last */
  Record last;             /* REC_FAIL, REC_FAULT or REC_CANARY when reported */
  int status;
  /* A host entry's run: the launch that began last (its REC_BEGIN), whether it is still running
   * (a fault between launches is the entry's own code), and the entry's cudaMalloc buffers. */
  Record begun;
  bool in_launch;
  Region *temps;           /* from the arena below, grown as REC_REGION records come */
  size_t ntemps;
  KrArena *a;
} Outcome;

static void take_region(Outcome *o, const Record *r) {
  if (!o->a) return;
  Region *t = kr_arena_alloc(o->a, (o->ntemps + 1) * sizeof *t);
  if (o->ntemps) memcpy(t, o->temps, o->ntemps * sizeof *t);
  t[o->ntemps++] = (Region){.map = (char *)(uintptr_t)r->rmap, .map_len = r->rmap_len,
                            .base = (char *)(uintptr_t)r->rbase, .bytes = r->rbytes, .lo = (char *)(uintptr_t)r->rlo,
                            .hi = (char *)(uintptr_t)r->rhi, .name = kr_arena_strdup(o->a, r->text)};
  o->temps = t;
}

static void watch(pid_t pid, int fd, double timeout, Outcome *o) {
  double deadline = kr_now_s() + timeout;
  Record r;
  for (;;) {
    int got = kr_proc_read_record(fd, &r, sizeof r, deadline);
    if (got < 0) {
      kill(pid, SIGKILL);
      if (got == KR_RECORD_INTERRUPTED) o->interrupted = true;
      else o->timed_out = true;
      break;
    }
    if (got == 0) break;
    if (r.kind == REC_REGION) {
      take_region(o, &r);
      continue;
    }
    o->launch = r.launch;
    if (r.kind == REC_BEGIN) deadline = kr_now_s() + timeout, o->begun = r, o->in_launch = true;
    else if (r.kind == REC_END) o->in_launch = false;
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

typedef struct Run {
  const KrEmuModule *m;
  const Job *jobs;
  const size_t *round_n;
  size_t nrounds;
  const Region *regs;
  size_t nregs;
  double timeout;
  const KrSandboxPolicy *policy;
  const char *who;          /* a host entry's run: "kernel 'k'" or "entry 'f'", and after it where */
  const char *from;         /* the launch came from: " (launched from f at k.cu:12)" */
} Run;

/* `o->launch` counts over every round; the kernel is named with its run when it is not in the
 * first, so a failure that only state left by an earlier round explains is recognisable. */
static void report(const Outcome *o, const Run *u, KrArena *a, KrDiags *d) {
  const Job *j = &u->jobs[o->launch];
  size_t round = 0, first = 0;
  while (round + 1 < u->nrounds && o->launch >= first + u->round_n[round]) first += u->round_n[round++];
  const char *k = j->l->kernel;
  const char *run = round ? kr_arena_printf(a, " (run %zu of %zu)", round + 1, u->nrounds) : "";
  const char *who = u->who ? u->who : kr_arena_printf(a, "kernel '%s'", k);
  if (u->from) run = u->from;
  const Record *r = &o->last;
  const char *boxed = o->reported && r->kind == REC_FAULT ? sandbox_text(r, u->m, u->policy, a) : NULL;
  if (!boxed && o->reported && r->kind == REC_FAULT) boxed = missing_text(r, u->m, a);
  if (o->interrupted) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s was interrupted (Ctrl-C); its process was killed", who, run);
  } else if (o->reported && r->kind == REC_FAULT && r->loading) {
    kr_diag_pos(d, KR_DIAG_ERROR, u->m->path, 0, 0, "the code that runs when the module is loaded "
                "(a global constructor) %s", boxed ? boxed : fault_text(r, j, u->regs, u->nregs, a));
  } else if (o->reported && r->kind == REC_FAIL && r->res.kind != KR_EMU_FIND_NONE) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s %s", who, run,
                finding_text(u->m, &r->res, j, u->regs, u->nregs, a));
  } else if (o->reported && r->kind == REC_FAIL) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s %s", who, run, r->res.message);
  } else if (o->reported && (r->kind == REC_DAMAGED || r->kind == REC_UNDEFINED)) {
    kr_diag_pos(d, KR_DIAG_ERROR, u->m->path, 0, 0, "%s%s: %s", who, run, load_text(r, u->m, a));
  } else if (boxed) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s %s", who, run, boxed);
  } else if (o->reported && r->kind == REC_FAULT) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s %s", who, run, fault_text(r, j, u->regs, u->nregs, a));
  } else if (o->reported && r->kind == REC_CANARY) {
    const Region *g = &u->regs[r->region];
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s %s (found after the launch)", who, run,
                out_of_bounds(g, j, r->offset, "wrote", a));
  } else if (o->timed_out) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "%s%s did not finish within %g s (a hang, or too much work for the emulator)",
                who, run, u->timeout);
  } else if (WIFSIGNALED(o->status) && WTERMSIG(o->status) == SIGSYS) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s %s", who, run, KR_BLOCKED_SIGSYS);
  } else if (WIFSIGNALED(o->status) && WTERMSIG(o->status) == SIGXFSZ) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s tried to write more than %llu MiB to a "
                "file (the sandbox's limit)", who, run, (unsigned long long)(u->policy->file_bytes >> 20));
  } else if (WIFSIGNALED(o->status)) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s%s was killed by %s (%d)", who, run,
                signal_name(WTERMSIG(o->status)), WTERMSIG(o->status));
  } else {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "%s%s ended the emulator process (exit status %d) before it finished", who, run,
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
  const char *why = launch_invalid(g, b, l->shmem);
  uint64_t nblk = (uint64_t)g.x * g.y * g.z;
  for (size_t i = 0; !why && l->blocks && i < l->nblocks; i++)
    if (l->blocks[i] >= nblk) why = "a sampled block index is past the grid's last block";
  if (why) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "kernel '%s': launch <<<(%u,%u,%u), (%u,%u,%u), %zu>>> is invalid: %s", k, g.x, g.y,
                g.z, b.x, b.y, b.z, l->shmem, why);
    return false;
  }
  j->index = (size_t)(j->e - m->entries);
  j->ml = (KrEmuModLaunch){.entry = NULL, .args = l->args, .grid = {g.x, g.y, g.z},
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

/* Forks `fn` under the emulator's sandbox policy with a private folder, watches it, and removes
 * the folder once the child is gone. */
static KrStatus fork_boxed(KrChildFn fn, ChildArgs *args, const char *what, double timeout,
                           Outcome *out, KrArena *a, KrDiags *d) {
  const char *dir = kr_sandbox_dir_new(a, d);
  if (!dir) return KR_ERR;
  args->policy.dir = dir;
  int pid, rfd;
  KrStatus st = kr_proc_fork(fn, args, what, &pid, &rfd, d);
  if (st == KR_OK) {
    watch(pid, rfd, timeout, out);
    close(rfd);
  }
  kr_dir_remove(dir);
  return st;
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
  /* Races on global memory are looked for in the first round only: the later rounds run the same
   * launches on other data to find state kept between calls, and a race that depends on the data
   * alone is rare, while the global race shadow is what makes a checked run slow. */
  int first_races = races(m, opt.race_check);
  for (size_t i = 0; i < n; i++)
    watch_regions(&jobs[i], regs, nregs, i < round_n[0] || first_races != KR_EMU_RACES_ALL ? first_races
                                                                                  : KR_EMU_RACES_SHARED, a);
  ChildArgs args = {.m = m, .jobs = jobs, .round_n = round_n, .nrounds = nrounds, .regs = regs, .nregs = nregs,
                    .policy = kr_sandbox_policy(KR_SANDBOX_EMU)};
  /* The wall clock per launch is the watchdog; the CPU limit only backs it up. */
  args.policy.cpu_s = timeout * (double)(n + 1) + 5.0;
  Outcome out = {0};
  if (fork_boxed(child_main, &args, "run the emulator", timeout, &out, a, diags) != KR_OK) goto done;
  if (opt.timed_out) *opt.timed_out = out.timed_out;
  if (out.done && !out.reported && WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0) {
    st = KR_OK;
  } else {
    Run u = {m, jobs, round_n, nrounds, regs, nregs, timeout, &args.policy, NULL, NULL};
    report(&out, &u, a, diags);
  }
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

/* ---- A host entry point ------------------------------------------------------------------------------------ */

/* The error of a host entry's run, named after the launch that was running (from the last
 * REC_BEGIN) with where the entry made it, or after the entry when its own code failed. */
static void report_entry(Outcome *o, const KrEmuModule *m, const Region *regs, size_t nregs, size_t ncalls,
                         double timeout, const KrSandboxPolicy *p, KrArena *a, KrDiags *d) {
  Region *all = kr_arena_alloc(a, (nregs + o->ntemps + 1) * sizeof *all);
  memcpy(all, regs, nregs * sizeof *all);
  if (o->ntemps) memcpy(all + nregs, o->temps, o->ntemps * sizeof *all);
  const Record *b = &o->begun;
  bool launch = o->in_launch && b->kernel < m->nentries;
  static const size_t none_sizes[1];
  KrEmuEntry none = {.name = m->entry, .sizes = (size_t *)none_sizes, .pointee = (size_t *)none_sizes};
  KrEmuLaunch l = {.kernel = launch ? m->entries[b->kernel].name : m->entry};
  if (launch) {
    l.grid = (KrDim3){b->grid[0], b->grid[1], b->grid[2]};
    l.block = (KrDim3){b->block[0], b->block[1], b->block[2]};
  }
  Job j = {.l = &l, .e = launch ? &m->entries[b->kernel] : &none};
  size_t one = 1;
  uint32_t round = launch ? b->round : 0;
  const char *run = ncalls > 1 && round ? kr_arena_printf(a, ", run %u of %zu", round + 1, ncalls) : "";
  Run u = {m, &j, &one, 1, all, nregs + o->ntemps, timeout, p,
           launch ? kr_arena_printf(a, "kernel '%s'", l.kernel) : kr_arena_printf(a, "entry '%s'", m->entry),
           launch ? kr_arena_printf(a, " (launched from %s at %s:%d%s)", m->entry, m->path, b->line, run) : ""};
  o->launch = 0;
  report(o, &u, a, d);
}

KrStatus kr_emu_run_entry(KrEmuModule *m, const KrEmuEntryCall *calls, size_t ncalls, const KrEmuOptions *o,
                          KrDiags *diags) {
  KrEmuOptions opt = o ? *o : (KrEmuOptions){0};
  if (opt.timed_out) *opt.timed_out = false;
  if (!m->entry) {
    kr_diag_pos(diags, KR_DIAG_ERROR, m->path, 0, 0, "the emulator module was built without an entry point");
    return KR_ERR;
  }
  if (ncalls == 0) return KR_OK;
  double timeout = opt.timeout_s > 0 ? opt.timeout_s : KR_DEFAULT_TIMEOUT_S;
  KrArena *a = kr_arena_new();
  size_t nregs;
  Region *regs = snapshot(a, &nregs);
  ChildArgs args = {.m = m, .nrounds = ncalls, .regs = regs, .nregs = nregs, .policy = kr_sandbox_policy(KR_SANDBOX_EMU),
                    .calls = calls, .seed = opt.seed, .shuffle = opt.shuffle, .races = races(m, opt.race_check)};
  /* The wall clock per launch is the watchdog; the CPU limit, for however many launches the entry
   * makes, only backs it up. */
  args.policy.cpu_s = timeout * (64.0 * (double)ncalls + 1) + 5.0;
  Outcome out = {.a = a};
  KrStatus st = KR_ERR;
  if (fork_boxed(child_entry_main, &args, "run the emulator", timeout, &out, a, diags) == KR_OK) {
    if (opt.timed_out) *opt.timed_out = out.timed_out;
    if (out.done && !out.reported && WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0)
      st = KR_OK;
    else
      report_entry(&out, m, regs, nregs, ncalls, timeout, &args.policy, a, diags);
    if (out.printf_cut)
      kr_diag_pos(diags, KR_DIAG_WARNING, NULL, 0, 0, "a kernel launched by '%s': printf output was cut at %u MiB, as "
                  "the GPU's FIFO would", m->entry, KR_EMU_PRINTF_FIFO >> 20);
  }
  kr_arena_free(a);
  return st;
}

/* ---- The probe ---------------------------------------------------------------------------------------------- */

static void take_sig(KrEmuModule *m, const Record *r) {
  if (r->launch >= m->nentries || r->offset < 0 || r->offset > 100000) return;
  KrEmuEntry *e = &m->entries[r->launch];
  size_t np = (size_t)r->offset;
  if (!e->sizes || e->nparams != np) {
    e->nparams = np;
    e->sizes = kr_arena_alloc(m->arena, (np + 1) * sizeof(size_t));
    e->pointee = kr_arena_alloc(m->arena, (np + 1) * sizeof(size_t));
  }
  uint64_t pairs[2 * KR_SIG_CHUNK];
  memcpy(pairs, r->text, sizeof pairs);
  for (size_t j = 0; j < KR_SIG_CHUNK && r->region + j < np; j++) {
    e->sizes[r->region + j] = (size_t)pairs[2 * j];
    e->pointee[r->region + j] = (size_t)pairs[2 * j + 1];
  }
}

/* The probe's records, read here rather than by watch(): REC_SIG carries the table. */
static void watch_probe(pid_t pid, int fd, KrEmuModule *m, Outcome *o) {
  double deadline = kr_now_s() + KR_PROBE_TIMEOUT_S;
  Record r;
  for (;;) {
    int got = kr_proc_read_record(fd, &r, sizeof r, deadline);
    if (got < 0) {
      kill(pid, SIGKILL);
      if (got == KR_RECORD_INTERRUPTED) o->interrupted = true;
      else o->timed_out = true;
      break;
    }
    if (got == 0) break;
    if (r.kind == REC_SIG) take_sig(m, &r);
    else if (r.kind == REC_DONE) o->done = true;
    else {
      o->last = r;
      o->reported = true;
      deadline = kr_now_s() + 5.0;
    }
  }
  while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR) {}
}

KrEmuProbe kr__emu_probe(KrEmuModule *m, KrDiags *d) {
  KrArena *a = kr_arena_new();
  ChildArgs args = {.m = m, .policy = kr_sandbox_policy(KR_SANDBOX_EMU)};
  args.policy.cpu_s = KR_PROBE_CPU_S;
  KrEmuProbe p = KR_EMU_PROBE_FAILED;
  const char *dir = kr_sandbox_dir_new(a, d);
  int pid, rfd;
  Outcome o = {0};
  args.policy.dir = dir;
  if (!dir || kr_proc_fork(probe_main, &args, "load the emulator module", &pid, &rfd, d) != KR_OK)
    goto done;
  watch_probe(pid, rfd, m, &o);
  close(rfd);
  bool complete = true;
  for (size_t i = 0; i < m->nentries; i++) complete = complete && m->entries[i].sizes;
  const Record *r = &o.last;
  if (o.done && !o.reported && complete && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) {
    p = KR_EMU_PROBE_OK;
  } else if (o.reported && (r->kind == REC_DAMAGED || r->kind == REC_UNDEFINED)) {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "%s", load_text(r, m, a));
    p = KR_EMU_PROBE_DAMAGED;
  } else if (o.reported && r->kind == REC_FAULT) {
    const char *boxed = sandbox_text(r, m, &args.policy, a);
    if (!boxed) boxed = missing_text(r, m, a);
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "the code that runs when the module is loaded "
                "(a global constructor) %s", boxed ? boxed : fault_text(r, NULL, NULL, 0, a));
  } else if (o.reported) {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "the emulator module could not be loaded: %s", r->text);
  } else if (WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGSYS) {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "the code that runs when the module is loaded "
                "(a global constructor) %s", KR_BLOCKED_SIGSYS);
  } else if (o.timed_out) {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "the code that runs when the module is loaded (a "
                "global constructor) did not finish within %g s", KR_PROBE_TIMEOUT_S);
  } else if (o.interrupted) {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "loading the emulator module was interrupted (Ctrl-C)");
  } else {
    kr_diag_pos(d, KR_DIAG_ERROR, m->path, 0, 0, "the emulator module could not be loaded: the "
                "loading process ended early (%s)", kr_proc_describe(&(KrProcResult){.started = true,
                .status = o.status}, a));
  }
done:
  if (dir) kr_dir_remove(dir);
  kr_arena_free(a);
  return p;
}
