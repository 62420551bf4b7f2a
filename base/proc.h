/* base/proc.h: running external tools (g++ for the CPU emulator, nvcc for the GPU) and the
 * folders their results are cached in. Tools run through posix_spawnp with an argv array (never
 * a shell), in their own process group, under a wall-clock limit, with their output captured.
 * It lives in base/ because both backend/ and runtime/ need it and both depend on base/. */
#ifndef KR_PROC_H
#define KR_PROC_H

#include <signal.h>

#include "base/kr.h"

typedef struct KrProcResult {
  bool started;      /* false: the program could not be run; the reason is in `err` (or `out`) */
  bool timed_out;    /* killed (with its process group) when the limit passed */
  int status;        /* the wait status, when started */
} KrProcResult;

/* Runs argv[0] (searched in PATH when it has no '/') with argv, stdin from /dev/null, stdout
 * captured into `out` and stderr into `err`; `err` NULL (or equal to `out`) merges both into `out`
 * in the order they were written. `env` lists extra "NAME=value" entries that replace or add to
 * the environment (NULL: none); LC_ALL=C is always set unless `env` names LC_ALL, so tools print
 * ASCII messages with plain quotes. timeout_s <= 0 means no limit. KR_OK when the program ran
 * (whatever its exit status; see `res`), KR_ERR when it could not be started. */
KrStatus kr_proc_run(const char *const argv[], const char *const env[], double timeout_s, KrBuf *out,
                     KrBuf *err, KrProcResult *res);

/* A one-line summary of how a finished program ended: "exit status 1", "killed by SIGSEGV". */
const char *kr_proc_describe(const KrProcResult *res, KrArena *arena);

/* The folder that caches `subdir` ("emu", "cubin"): $XDG_CACHE_HOME/krewrite/<subdir>, else
 * ~/.cache/krewrite/<subdir>, else /tmp/krewrite-<subdir>-<uid>. Not created. */
const char *kr_cache_dir(const char *subdir, KrArena *arena);

/* mkdir -p (mode 0755); true when the folder exists afterwards. */
bool kr_dir_make(const char *path);
/* rm -rf, without following symbolic links; errors are ignored. */
void kr_dir_remove(const char *path);
/* Writes a whole file in place (no rename; for files inside a private temporary folder). */
bool kr_file_write(const char *path, const void *data, size_t len);
/* Seconds on the monotonic clock. */
double kr_now_s(void);

/* True when `path` is a regular file this process may execute. */
bool kr_is_executable(const char *path);
/* `name` looked up in the colon-separated `path_var` (a PATH value; NULL: empty): the first
 * entry's "dir/name" that is executable, allocated from `a`; NULL when none is. */
const char *kr_path_search(const char *name, const char *path_var, KrArena *a);

/* Forks a child that runs fn(ctx, fd) with `fd` the write end of a pipe, then exits 0 (fn may
 * exit itself). The child dies with its parent (PR_SET_PDEATHSIG) and its stdout goes to stderr,
 * so output of the code it runs never mixes into the parent's stdout. The parent gets the pid
 * and the read end; stdio is flushed first, or the child would write the parent's buffered
 * output again. `what` names the job in errors ("run the emulator"). */
typedef void (*KrChildFn)(void *ctx, int fd);

/* Reads exactly `size` bytes (one fixed-size record a child sent) from `fd`, waiting at most
 * until `deadline` (kr_now_s() time). 1: read; 0: the writer closed first; KR_RECORD_LATE: time ran
 * out; KR_RECORD_INTERRUPTED: the process's interrupt flag is set (kr_proc_interrupt_flag), which
 * the caller treats as lateness (it kills the child) but reports as an interruption. */
enum { KR_RECORD_LATE = -1, KR_RECORD_INTERRUPTED = -2 };
int kr_proc_read_record(int fd, void *rec, size_t size, double deadline);

/* The process's interrupt flag: a command that catches Ctrl-C (optimize) hands its handler's flag
 * here; once it is set, no wait on a child's records goes on (kr_proc_read_record returns -2), so
 * a long GPU fill or emulator run stops with the search instead of running to its end. NULL: none. */
void kr_proc_interrupt_flag(const volatile sig_atomic_t *flag);
KrStatus kr_proc_fork(KrChildFn fn, void *ctx, const char *what, int *pid, int *read_fd,
                      KrDiags *diags);

#endif
