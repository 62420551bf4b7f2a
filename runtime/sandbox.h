/* runtime/sandbox.h: confining a forked child before it loads untrusted code (a candidate's or an
 * original's module on the CPU emulator, their kernels on the GPU). The threat model is in
 * docs/problems.md ("What runs where, and what it may do"). A child calls kr_sandbox_enter right
 * before it loads the module; from then on the process may read files the user can read, compute,
 * write to the file descriptors it already holds (the record pipe, stderr) and end itself, and
 * nothing else: no program started, no process created, no network, no file written, renamed or
 * removed, no signal to another process. A forbidden system call raises SIGSYS (SCMP_ACT_TRAP);
 * the child's handler reads what was tried with kr_sandbox_trap_read and reports it, and the
 * parent phrases it with kr_sandbox_trap_text.
 *
 * Layers, in the order kr_sandbox_enter sets them: rlimits (CPU time, address space, file size,
 * processes, core dumps), a private working folder, a user and network namespace (when the kernel
 * permits one: a container may refuse it, and then the layer is skipped), PR_SET_NO_NEW_PRIVS, the
 * seccomp filter. Everything but the namespace is always on. */
#ifndef KR_SANDBOX_H
#define KR_SANDBOX_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/kr.h"

typedef enum KrSandboxKind {
  /* The CPU emulator: an allowlist; any other system call traps. */
  KR_SANDBOX_EMU,
  /* A GPU child, entered after the CUDA context exists and the modules are loaded: the driver's
   * ioctls, threads and mappings stay allowed; the calls that reach outside the process (exec,
   * fork, sockets, file writes and changes, signals to others, ptrace, mounts, io_uring) trap. */
  KR_SANDBOX_GPU,
} KrSandboxKind;

typedef struct KrSandboxPolicy {
  KrSandboxKind kind;
  double cpu_s;          /* RLIMIT_CPU (SIGXCPU, then SIGKILL one second later); 0: none */
  uint64_t mem_bytes;    /* RLIMIT_AS: this much beyond what the process maps on entry; 0: none
                            (the GPU policy: the driver reserves terabytes of address space) */
  uint64_t map_bytes;    /* the largest one mmap or mremap may ask for (traps above); 0: no limit */
  uint64_t file_bytes;   /* RLIMIT_FSIZE (SIGXFSZ) for the descriptors the child holds */
  const char *dir;       /* the private folder to work in (kr_sandbox_dir_new); NULL: stay put */
} KrSandboxPolicy;

/* The defaults of a kind: EMU 4 GiB of address space, 2 GiB per mapping; both kinds 1 GiB per
 * file, cpu_s 0 (the caller knows its time limit). */
KrSandboxPolicy kr_sandbox_policy(KrSandboxKind kind);

/* The layers kr_sandbox_enter set (a mask). */
enum {
  KR_SANDBOX_RLIMITS = 1u << 0,
  KR_SANDBOX_DIR = 1u << 1,
  KR_SANDBOX_NAMESPACES = 1u << 2,
  KR_SANDBOX_SECCOMP = 1u << 3,
};

/* Confines the calling process, which must be single-threaded (a fresh fork) for the namespace
 * layer. KR_OK with *layers (may be NULL) saying which layers are on; KR_ERR with a sentence in
 * `why` when a layer that must be on could not be set (the child must then not load the code).
 * Async-signal-safe apart from libseccomp's allocations, so it may run after fork in a process
 * that had threads. */
KrStatus kr_sandbox_enter(const KrSandboxPolicy *p, unsigned *layers, char *why, size_t n);

/* What a trapped system call tried, read in the SIGSYS handler (async-signal-safe). The path is
 * the call's first path argument when it has one and it could be read, else empty. */
typedef struct KrSandboxTrap {
  int nr;                /* the system call number (this architecture's) */
  uint64_t args[6];
  uintptr_t pc;          /* the instruction after the system call */
  char path[256];
} KrSandboxTrap;

void kr_sandbox_trap_read(const siginfo_t *si, const void *ucontext, KrSandboxTrap *t);

/* "run a program (execve '/bin/sh')", "write the file '/tmp/x' (openat)", "open a network
 * socket (socket)", …: what follows "tried to" in a message. From `a`. */
const char *kr_sandbox_trap_text(const KrSandboxTrap *t, const KrSandboxPolicy *p, KrArena *a);

/* A private folder for one child ("$TMPDIR/kr-sandbox-XXXXXX", mode 0700), from `a`; NULL with
 * an error in `d` when it cannot be made. The parent removes it (kr_dir_remove) once the child is
 * gone, whatever the child left there. */
const char *kr_sandbox_dir_new(KrArena *a, KrDiags *d);

#endif
