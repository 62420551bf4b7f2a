/* runtime/sandbox.c: the confinement a child enters before it loads untrusted code (sandbox.h):
 * rlimits, a private working folder, a user and network namespace where the kernel allows one,
 * PR_SET_NO_NEW_PRIVS and a seccomp filter built with libseccomp; then, for the SIGSYS handler,
 * reading what a trapped call tried, and for the parent, saying it in words. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime/sandbox.h"

#define KR_GIB (1024ull * 1024ull * 1024ull)
#define KR_WRITE_FLAGS ((uint64_t)(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND))

KrSandboxPolicy kr_sandbox_policy(KrSandboxKind kind) {
  KrSandboxPolicy p = {.kind = kind, .file_bytes = KR_GIB};
  if (kind == KR_SANDBOX_EMU) {
    p.mem_bytes = 4 * KR_GIB;
    p.map_bytes = 2 * KR_GIB;
  }
  return p;
}

/* ---- Rlimits, folder, namespaces ------------------------------------------------------------------- */

static void say(char *why, size_t n, const char *what, int err) {
  if (why && n) snprintf(why, n, "the sandbox could not %s: %s", what, strerror(err));
}

/* The bytes of address space the process maps now (/proc/self/statm's first field, in pages). */
static uint64_t mapped_now(void) {
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  ssize_t got = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (got <= 0) return 0;
  buf[got] = 0;
  return strtoull(buf, NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE);
}

static bool limit(int res, uint64_t soft, uint64_t hard) {
  struct rlimit r = {.rlim_cur = (rlim_t)soft, .rlim_max = (rlim_t)hard};
  return setrlimit(res, &r) == 0;
}

static bool set_rlimits(const KrSandboxPolicy *p, char *why, size_t n) {
  bool ok = limit(RLIMIT_CORE, 0, 0);
  if (ok && p->cpu_s > 0) {
    uint64_t s = (uint64_t)p->cpu_s + 1;
    ok = limit(RLIMIT_CPU, s, s + 1);  /* SIGXCPU at the soft limit, SIGKILL a second later */
  }
  if (ok && p->mem_bytes) {
    uint64_t as = mapped_now() + p->mem_bytes;
    ok = limit(RLIMIT_AS, as, as);
  }
  if (ok && p->file_bytes) ok = limit(RLIMIT_FSIZE, p->file_bytes, p->file_bytes);
  /* No new processes; the GPU child keeps its limit because the driver may start threads, which
   * count as processes here (seccomp stops fork there). */
  if (ok && p->kind == KR_SANDBOX_EMU) ok = limit(RLIMIT_NPROC, 0, 0);
  if (!ok) say(why, n, "set its resource limits", errno);
  return ok;
}

/* A user namespace (nothing mapped: the process keeps its own uid for file access, but holds no
 * privilege over anything outside) and a network namespace with only a loopback that is down. A
 * container may refuse both (EPERM, or ENOSPC/EINVAL); then the other layers stand alone. */
static bool namespaces(void) { return unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0; }

/* ---- The seccomp filter ------------------------------------------------------------------------------- */

/* What the emulator and the C and C++ runtimes need once the module is being loaded: reading
 * files, memory, time, signals for its own crash reports, and writes to descriptors it holds. */
static const char *const kEmuAllow[] = {
  "read", "write", "readv", "writev", "pread64", "pwrite64", "lseek", "close", "fstat",
  "newfstatat", "stat", "lstat", "statx", "access", "faccessat", "faccessat2", "readlink",
  "readlinkat", "getcwd", "getdents64", "fcntl", "dup", "dup2", "dup3", "pipe", "pipe2", "poll",
  "ppoll", "mprotect", "munmap", "madvise", "mincore", "msync", "brk", "futex", "futex_waitv",
  "set_robust_list", "get_robust_list", "rseq", "set_tid_address", "arch_prctl", "prctl",
  "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time",
  "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups",
  "getresuid", "getresgid", "getpgrp", "getrusage", "times", "sysinfo", "uname", "sched_yield",
  "sched_getaffinity", "sched_getparam", "sched_getscheduler", "getcpu", "getrandom",
  "rt_sigaction", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
  "rt_sigtimedwait", "sigaltstack", "restart_syscall", "exit", "exit_group", "membarrier",
  "wait4", "waitid", "getrlimit",
};

/* What the GPU child may not do even though the driver runs free otherwise (and what the
 * emulator's allowlist leaves out anyway). io_uring would do file and network work behind the
 * filter's back; the mount and namespace calls would change what paths mean. */
static const char *const kGpuDeny[] = {
  "execve", "execveat", "fork", "vfork", "socket", "connect", "bind", "listen", "accept",
  "accept4", "creat", "unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2", "mkdir",
  "mkdirat", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmodat", "fchmodat2", "chown",
  "lchown", "fchownat", "truncate", "mknod", "mknodat", "mount", "umount2", "chroot",
  "pivot_root", "ptrace", "process_vm_writev", "setns", "unshare", "bpf", "io_uring_setup",
  "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key", "init_module",
  "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff",
  "acct", "sethostname", "setdomainname", "settimeofday", "clock_settime", "clock_adjtime",
  "adjtimex", "open_by_handle_at", "name_to_handle_at", "setxattr", "lsetxattr", "fsetxattr",
  "removexattr", "lremovexattr", "fremovexattr", "utimensat", "utimes", "utime", "futimesat",
  "mount_setattr", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
  "quotactl", "perf_event_open", "userfaultfd", "setrlimit", "pidfd_open", "pidfd_send_signal",
  "pidfd_getfd", "process_madvise", "kcmp", "mq_open", "mq_unlink", "msgget",
};

/* A rule on a call this architecture may lack (open on arm64): skipped when it does. */
static int rule(scmp_filter_ctx f, uint32_t act, const char *name, unsigned nargs,
                struct scmp_arg_cmp a, struct scmp_arg_cmp b) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return 0;
  struct scmp_arg_cmp c[2] = {a, b};
  return seccomp_rule_add_array(f, act, nr, nargs, c);
}

#define NOARG ((struct scmp_arg_cmp){0})

/* A condition on argument `arg`: `a` the value (or the mask, with b the value, for
 * SCMP_CMP_MASKED_EQ). libseccomp's SCMP_A<n> macros leave a field out, which clang warns of. */
static struct scmp_arg_cmp cmp(unsigned arg, enum scmp_compare op, uint64_t a, uint64_t b) {
  return (struct scmp_arg_cmp){.arg = arg, .op = op, .datum_a = a, .datum_b = b};
}

static int emu_rules(scmp_filter_ctx f, const KrSandboxPolicy *p, uint64_t pid) {
  int rc = 0;
  for (size_t i = 0; i < sizeof kEmuAllow / sizeof kEmuAllow[0] && rc == 0; i++)
    rc = rule(f, SCMP_ACT_ALLOW, kEmuAllow[i], 0, NOARG, NOARG);
  /* Files open for reading only: dlopen, /proc/self/maps and the like. */
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "open", 1, cmp(1, SCMP_CMP_MASKED_EQ, KR_WRITE_FLAGS, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "openat", 1, cmp(2, SCMP_CMP_MASKED_EQ, KR_WRITE_FLAGS, 0), NOARG);
  uint64_t map = p->map_bytes ? p->map_bytes : UINT64_MAX;
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "mmap", 1, cmp(1, SCMP_CMP_LE, map, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "mremap", 1, cmp(2, SCMP_CMP_LE, map, 0), NOARG);
  /* Threads, but no process: clone must carry CLONE_THREAD; clone3's flags sit in memory the
   * filter cannot read, so it reports ENOSYS and the C library falls back to clone. */
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "clone", 1,
                     cmp(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NOARG, NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ERRNO(ENOSYS), "openat2", 0, NOARG, NOARG);
  /* A trapped call with SIGSYS blocked kills the process before the handler can say what was
   * tried, and system(), popen() and posix_spawn() block every signal (SIG_BLOCK) around their
   * clone. So SIG_BLOCK fails (they go on regardless) and their clone traps with the handler
   * running; SIG_SETMASK and SIG_UNBLOCK, which context switches and abort() use, still work. */
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "rt_sigprocmask", 1, cmp(0, SCMP_CMP_NE, SIG_BLOCK, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ERRNO(EPERM), "rt_sigprocmask", 1, cmp(0, SCMP_CMP_EQ, SIG_BLOCK, 0), NOARG);
  /* Signals to itself only (abort, raise); the parent and everyone else are out of reach. */
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "kill", 1, cmp(0, SCMP_CMP_EQ, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "tkill", 1, cmp(0, SCMP_CMP_EQ, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "tgkill", 1, cmp(0, SCMP_CMP_EQ, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "process_vm_readv", 1, cmp(0, SCMP_CMP_EQ, pid, 0), NOARG);
  /* Limits may be read, never set: a child running as root outside a user namespace could raise
   * them again. */
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "prlimit64", 1, cmp(2, SCMP_CMP_EQ, 0, 0), NOARG);
  /* stdio asks whether a stream is a terminal; no other ioctl (TIOCSTI would type into it). */
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "ioctl", 1, cmp(1, SCMP_CMP_EQ, TCGETS, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ALLOW, "ioctl", 1, cmp(1, SCMP_CMP_EQ, TIOCGWINSZ, 0), NOARG);
  return rc;
}

static int gpu_rules(scmp_filter_ctx f, uint64_t pid) {
  int rc = 0;
  for (size_t i = 0; i < sizeof kGpuDeny / sizeof kGpuDeny[0] && rc == 0; i++)
    rc = rule(f, SCMP_ACT_TRAP, kGpuDeny[i], 0, NOARG, NOARG);
  /* An open that could write: any one of the flags (the filter has no "masked, not equal"). */
  static const uint64_t bits[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND};
  for (size_t i = 0; i < sizeof bits / sizeof bits[0] && rc == 0; i++) {
    rc = rule(f, SCMP_ACT_TRAP, "open", 1, cmp(1, SCMP_CMP_MASKED_EQ, bits[i], bits[i]), NOARG);
    if (!rc) rc = rule(f, SCMP_ACT_TRAP, "openat", 1, cmp(2, SCMP_CMP_MASKED_EQ, bits[i], bits[i]), NOARG);
  }
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "clone", 1, cmp(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NOARG, NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_ERRNO(ENOSYS), "openat2", 0, NOARG, NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "kill", 1, cmp(0, SCMP_CMP_NE, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "tkill", 1, cmp(0, SCMP_CMP_NE, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "tgkill", 1, cmp(0, SCMP_CMP_NE, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "process_vm_readv", 1, cmp(0, SCMP_CMP_NE, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "rt_sigqueueinfo", 1, cmp(0, SCMP_CMP_NE, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "rt_tgsigqueueinfo", 1, cmp(0, SCMP_CMP_NE, pid, 0), NOARG);
  if (!rc) rc = rule(f, SCMP_ACT_TRAP, "prlimit64", 1, cmp(2, SCMP_CMP_NE, 0, 0), NOARG);
  return rc;
}

static bool load_filter(const KrSandboxPolicy *p, char *why, size_t n) {
  uint64_t pid = (uint64_t)getpid();
  scmp_filter_ctx f = seccomp_init(p->kind == KR_SANDBOX_EMU ? SCMP_ACT_TRAP : SCMP_ACT_ALLOW);
  if (!f) {
    say(why, n, "start its system-call filter", ENOMEM);
    return false;
  }
  /* Every thread, not only the caller: the GPU child holds the driver's threads by now, and the
   * kernel then sets no_new_privs on them too. */
  int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
  if (rc == 0) rc = p->kind == KR_SANDBOX_EMU ? emu_rules(f, p, pid) : gpu_rules(f, pid);
  if (rc == 0) rc = seccomp_load(f);
  seccomp_release(f);
  if (rc != 0) say(why, n, "load its system-call filter", -rc);
  return rc == 0;
}

KrStatus kr_sandbox_enter(const KrSandboxPolicy *p, unsigned *layers, char *why, size_t n) {
  unsigned on = 0;
  if (layers) *layers = 0;
  if (why && n) why[0] = 0;
  if (!set_rlimits(p, why, n)) return KR_ERR;
  on |= KR_SANDBOX_RLIMITS;
  if (p->dir) {
    if (chdir(p->dir) != 0) {
      say(why, n, "enter its private folder", errno);
      return KR_ERR;
    }
    on |= KR_SANDBOX_DIR;
  }
  if (namespaces()) on |= KR_SANDBOX_NAMESPACES;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    say(why, n, "set no_new_privs", errno);
    return KR_ERR;
  }
  if (!load_filter(p, why, n)) return KR_ERR;
  on |= KR_SANDBOX_SECCOMP;
  if (layers) *layers = on;
  return KR_OK;
}

/* ---- What a trapped call tried (in the SIGSYS handler) ----------------------------------------------- */

/* Which argument of call `nr` is the path worth naming; -1: none. */
static int path_arg(long nr) {
  switch (nr) {
#define P(name, i) case __NR_##name: return i;
#ifdef __NR_open
  P(open, 0) P(creat, 0) P(unlink, 0) P(rmdir, 0) P(rename, 0) P(mkdir, 0) P(link, 1)
  P(symlink, 1) P(chmod, 0) P(chown, 0) P(lchown, 0) P(mknod, 0) P(utimes, 0) P(utime, 0)
#endif
  P(openat, 1) P(unlinkat, 1) P(renameat, 1) P(renameat2, 1) P(mkdirat, 1) P(linkat, 3)
  P(symlinkat, 2) P(fchmodat, 1) P(fchownat, 1) P(truncate, 0) P(mknodat, 1) P(execve, 0)
  P(execveat, 1) P(mount, 1) P(chroot, 0) P(utimensat, 1) P(setxattr, 0) P(removexattr, 0)
#undef P
  default: return -1;
  }
}

/* Copies a NUL-terminated string from this process's memory without faulting on a bad pointer:
 * process_vm_readv reports EFAULT instead. Page by page, as a string may end before a hole. */
static void read_string(uintptr_t addr, char *out, size_t cap) {
  out[0] = 0;
  if (!addr) return;
  size_t page = 4096, got = 0;
  while (got + 1 < cap) {
    size_t want = page - ((addr + got) % page);
    if (want > cap - 1 - got) want = cap - 1 - got;
    struct iovec local = {out + got, want}, remote = {(void *)(addr + got), want};
    ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (r <= 0) break;
    out[got + (size_t)r] = 0;
    if (memchr(out + got, 0, (size_t)r)) return;
    got += (size_t)r;
  }
  out[got] = 0;
}

void kr_sandbox_trap_read(const siginfo_t *si, const void *ucontext, KrSandboxTrap *t) {
  memset(t, 0, sizeof *t);
  t->nr = si->si_syscall;
  t->pc = (uintptr_t)si->si_call_addr;
  const ucontext_t *uc = ucontext;
#if defined(__x86_64__)
  static const int regs[6] = {REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9};
  for (int i = 0; i < 6; i++) t->args[i] = (uint64_t)uc->uc_mcontext.gregs[regs[i]];
#elif defined(__aarch64__)
  for (int i = 0; i < 6; i++) t->args[i] = (uint64_t)uc->uc_mcontext.regs[i];
#else
  (void)uc;
#endif
  int k = path_arg(t->nr);
  if (k >= 0) read_string((uintptr_t)t->args[k], t->path, sizeof t->path);
}

/* ---- In words (in the parent) --------------------------------------------------------------------------- */

static bool is(const char *name, const char *const *set) {
  for (; *set; set++)
    if (strcmp(name, *set) == 0) return true;
  return false;
}

static const char *quoted(const KrSandboxTrap *t, KrArena *a) {
  return t->path[0] ? kr_arena_printf(a, " '%s'", t->path) : "";
}

static const char *open_text(const KrSandboxTrap *t, const char *name, KrArena *a) {
  uint64_t flags = strcmp(name, "open") == 0 ? t->args[1] : t->args[2];
  bool writes = strcmp(name, "creat") == 0 || (flags & KR_WRITE_FLAGS) != 0;
  return kr_arena_printf(a, "%s the file%s (%s)", writes ? "write" : "open", quoted(t, a), name);
}

static const char *memory_text(const KrSandboxTrap *t, const char *name, const KrSandboxPolicy *p,
                               KrArena *a) {
  uint64_t bytes = strcmp(name, "mmap") == 0 ? t->args[1] : t->args[2];
  return kr_arena_printf(a, "map %llu MiB of memory at once, beyond the sandbox's %llu MiB (%s)",
                         (unsigned long long)(bytes >> 20),
                         (unsigned long long)((p ? p->map_bytes : 0) >> 20), name);
}

static const char *family(uint64_t f, KrArena *a) {
  switch (f) {
  case AF_INET: return "AF_INET";
  case AF_INET6: return "AF_INET6";
  case AF_UNIX: return "AF_UNIX";
  case AF_NETLINK: return "AF_NETLINK";
  default: return kr_arena_printf(a, "family %llu", (unsigned long long)f);
  }
}

const char *kr_sandbox_trap_text(const KrSandboxTrap *t, const KrSandboxPolicy *p, KrArena *a) {
  static const char *const exec[] = {"execve", "execveat", NULL};
  static const char *const procs[] = {"clone", "clone3", "fork", "vfork", NULL};
  static const char *const net[] = {"connect", "bind", "listen", "accept", "accept4", "sendto",
                                    "sendmsg", "recvfrom", "recvmsg", NULL};
  static const char *const opens[] = {"open", "openat", "creat", NULL};
  static const char *const removes[] = {"unlink", "unlinkat", "rmdir", NULL};
  static const char *const renames[] = {"rename", "renameat", "renameat2", NULL};
  static const char *const creates[] = {"mkdir", "mkdirat", "mknod", "mknodat", "link", "linkat",
                                        "symlink", "symlinkat", NULL};
  static const char *const changes[] = {"chmod", "fchmodat", "fchmodat2", "chown", "lchown",
                                        "fchownat", "truncate", "utimensat", "utimes", "utime",
                                        "futimesat", "setxattr", "lsetxattr", "removexattr", NULL};
  static const char *const signals[] = {"kill", "tkill", "tgkill", "rt_sigqueueinfo",
                                        "rt_tgsigqueueinfo", "pidfd_send_signal", NULL};
  static const char *const others[] = {"ptrace", "process_vm_readv", "process_vm_writev",
                                       "pidfd_open", "pidfd_getfd", "process_madvise", NULL};
  static const char *const views[] = {"mount", "umount2", "chroot", "pivot_root", "setns",
                                      "unshare", NULL};
  char *raw = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, t->nr);
  const char *name = raw ? kr_arena_strdup(a, raw) : kr_arena_printf(a, "system call %d", t->nr);
  free(raw);
  if (is(name, exec)) return kr_arena_printf(a, "run a program (%s%s)", name, quoted(t, a));
  if (strcmp(name, "clone") == 0 && (t->args[0] & CLONE_VFORK))
    return kr_arena_printf(a, "run a program (clone with CLONE_VFORK, as system(), popen() and "
                           "posix_spawn() do)");
  if (is(name, procs)) return kr_arena_printf(a, "start a process (%s)", name);
  if (strcmp(name, "socket") == 0 || strcmp(name, "socketpair") == 0)
    return kr_arena_printf(a, "open a network socket (%s %s)", name, family(t->args[0], a));
  if (is(name, net)) return kr_arena_printf(a, "use a network socket (%s)", name);
  if (is(name, opens)) return open_text(t, name, a);
  if (is(name, removes)) return kr_arena_printf(a, "remove the file%s (%s)", quoted(t, a), name);
  if (is(name, renames)) return kr_arena_printf(a, "rename the file%s (%s)", quoted(t, a), name);
  if (is(name, creates)) return kr_arena_printf(a, "create the file%s (%s)", quoted(t, a), name);
  if (is(name, changes)) return kr_arena_printf(a, "change the file%s (%s)", quoted(t, a), name);
  if (is(name, signals))
    return kr_arena_printf(a, "send a signal to another process (%s %lld)", name, (long long)t->args[0]);
  if (is(name, others)) return kr_arena_printf(a, "reach into another process (%s)", name);
  if (is(name, views)) return kr_arena_printf(a, "change its mounts or namespaces (%s)", name);
  if (strcmp(name, "mmap") == 0 || strcmp(name, "mremap") == 0) return memory_text(t, name, p, a);
  if (strcmp(name, "setrlimit") == 0 || strcmp(name, "prlimit64") == 0)
    return kr_arena_printf(a, "change its resource limits (%s)", name);
  if (strncmp(name, "io_uring", 8) == 0)
    return kr_arena_printf(a, "use io_uring (%s), which the sandbox cannot inspect", name);
  return kr_arena_printf(a, "make the system call '%s', which the sandbox does not allow", name);
}

/* ---- The private folder ----------------------------------------------------------------------------------- */

const char *kr_sandbox_dir_new(KrArena *a, KrDiags *d) {
  const char *tmp = getenv("TMPDIR");
  char *dir = kr_arena_printf(a, "%s/kr-sandbox-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    kr_diag_pos(d, KR_DIAG_ERROR, dir, 0, 0, "cannot create the sandbox's private folder: %s",
                strerror(errno));
    return NULL;
  }
  return dir;
}
