/* base/proc.c: running external tools under a time limit with captured output, and the
 * small file-system helpers their caches need (proc.h). */
#define _GNU_SOURCE /* pipe2, nftw */
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

bool kr_is_executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

const char *kr_path_search(const char *name, const char *path_var, KrArena *a) {
  for (const char *p = path_var ? path_var : ""; *p;) {
    const char *colon = strchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    const char *cand = n ? kr_arena_printf(a, "%.*s/%s", (int)n, p, name) : NULL;
    if (cand && kr_is_executable(cand)) return cand;
    p += n + (colon ? 1 : 0);
  }
  return NULL;
}

double kr_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Running a tool ---------------------------------------------------------------------------- */

static size_t name_len(const char *entry) {
  const char *eq = strchr(entry, '=');
  return eq ? (size_t)(eq - entry) : strlen(entry);
}

static bool names_var(const char *const env[], const char *entry) {
  size_t n = name_len(entry);
  for (size_t i = 0; env && env[i]; i++)
    if (name_len(env[i]) == n && strncmp(env[i], entry, n) == 0) return true;
  return false;
}

/* The child's environment: ours, minus what `env` replaces, plus `env` and LC_ALL=C. The strings
 * are borrowed; the array is malloc'd (NULL when out of memory). */
static char **child_env(const char *const env[]) {
  size_t n = 0, extra = 0;
  while (environ[n]) n++;
  while (env && env[extra]) extra++;
  char **out = malloc((n + extra + 2) * sizeof *out);
  if (!out) return NULL;
  bool own_locale = names_var(env, "LC_ALL=");
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!names_var(env, environ[i]) && strncmp(environ[i], "LC_ALL=", 7) != 0) out[k++] = environ[i];
  for (size_t i = 0; i < extra; i++) out[k++] = (char *)env[i];
  if (!own_locale) out[k++] = "LC_ALL=C";
  out[k] = NULL;
  return out;
}

static pid_t spawn(const char *const argv[], const char *const env[], int out_fd, int err_fd,
                   int *error) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  posix_spawnattr_init(&at);
  /* Its own process group, so that a time-out ends the tool's children too (nvcc runs cicc,
   * ptxas and the host compiler as children). */
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  char **e = child_env(env);
  pid_t pid = -1;
  *error = e ? posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, e) : ENOMEM;
  free(e);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  return *error ? -1 : pid;
}

/* Reads both pipes until they close or the deadline passes; false on a time-out. */
static bool drain(int fds[2], KrBuf *bufs[2], double timeout_s) {
  double deadline = timeout_s > 0 ? kr_now_s() + timeout_s : 0;
  char chunk[4096];
  while (fds[0] >= 0 || fds[1] >= 0) {
    struct pollfd pf[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLIN}};
    int ms = -1;
    if (timeout_s > 0) {
      double left = deadline - kr_now_s();
      if (left <= 0) return false;
      ms = (int)(left * 1000.0) + 1;
    }
    int r = poll(pf, 2, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return true;
    for (int i = 0; i < 2; i++) {
      if (fds[i] < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t k = read(fds[i], chunk, sizeof chunk);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        close(fds[i]);
        fds[i] = -1;
      } else {
        kr_buf_append(bufs[i], chunk, (size_t)k);
      }
    }
  }
  return true;
}

KrStatus kr_proc_run(const char *const argv[], const char *const env[], double timeout_s, KrBuf *out,
                     KrBuf *err, KrProcResult *res) {
  *res = (KrProcResult){0};
  bool merged = !err || err == out;
  KrBuf *why = merged ? out : err;
  int po[2], pe[2] = {-1, -1};
  if (pipe2(po, O_CLOEXEC) != 0 || (!merged && pipe2(pe, O_CLOEXEC) != 0)) {
    kr_buf_printf(why, "pipe: %s", strerror(errno));
    return KR_ERR;
  }
  int error;
  pid_t pid = spawn(argv, env, po[1], merged ? po[1] : pe[1], &error);
  close(po[1]);
  if (!merged) close(pe[1]);
  if (pid < 0) {
    close(po[0]);
    if (!merged) close(pe[0]);
    kr_buf_printf(why, "cannot run '%s': %s", argv[0], strerror(error));
    return KR_ERR;
  }
  int fds[2] = {po[0], merged ? -1 : pe[0]};
  KrBuf *bufs[2] = {out, err};
  if (!drain(fds, bufs, timeout_s)) {
    kill(-pid, SIGKILL);
    res->timed_out = true;
  }
  for (int i = 0; i < 2; i++)  /* open still after a time-out or a failed poll */
    if (fds[i] >= 0) close(fds[i]);
  while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR) {}
  res->started = true;
  return KR_OK;
}

const char *kr_proc_describe(const KrProcResult *res, KrArena *arena) {
  if (!res->started) return "not started";
  if (res->timed_out) return "timed out";
  if (WIFEXITED(res->status)) return kr_arena_printf(arena, "exit status %d", WEXITSTATUS(res->status));
  if (WIFSIGNALED(res->status)) {
    int sig = WTERMSIG(res->status);
    const char *name = sigabbrev_np(sig);
    return name ? kr_arena_printf(arena, "killed by SIG%s", name)
                : kr_arena_printf(arena, "killed by signal %d", sig);
  }
  return kr_arena_printf(arena, "wait status %#x", (unsigned)res->status);
}

/* ---- Files and folders -------------------------------------------------------------------------------- */

const char *kr_cache_dir(const char *subdir, KrArena *arena) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return kr_arena_printf(arena, "%s/krewrite/%s", xdg, subdir);
  const char *home = getenv("HOME");
  if (home && *home) return kr_arena_printf(arena, "%s/.cache/krewrite/%s", home, subdir);
  return kr_arena_printf(arena, "/tmp/krewrite-%s-%u", subdir, (unsigned)getuid());
}

bool kr_dir_make(const char *path) {
  char *s = strdup(path);
  if (!s) return false;
  for (char *p = s + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(s, 0755) != 0 && errno != EEXIST) break;
    *p = '/';
  }
  bool ok = mkdir(s, 0755) == 0 || errno == EEXIST;
  free(s);
  return ok;
}

bool kr_file_write(const char *path, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const char *p = data;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      close(fd);
      return false;
    }
    p += w;
    len -= (size_t)w;
  }
  return close(fd) == 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void kr_dir_remove(const char *path) { nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

KrStatus kr_proc_fork(KrChildFn fn, void *ctx, const char *what, int *pid, int *read_fd,
                      KrDiags *diags) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "cannot %s: pipe: %s", what, strerror(errno));
    return KR_ERR;
  }
  fflush(NULL);
  pid_t child = fork();
  if (child < 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "cannot %s: fork: %s", what, strerror(errno));
    close(p[0]);
    close(p[1]);
    return KR_ERR;
  }
  if (child == 0) {
    close(p[0]);
#if defined(__linux__)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    dup2(STDERR_FILENO, STDOUT_FILENO);
    fn(ctx, p[1]);
    fflush(NULL);
    _exit(0);
  }
  close(p[1]);
  *pid = (int)child;
  *read_fd = p[0];
  return KR_OK;
}

static const volatile sig_atomic_t *g_interrupt;

void kr_proc_interrupt_flag(const volatile sig_atomic_t *flag) {
  g_interrupt = flag;
}

static bool interrupted(void) {
  return g_interrupt && *g_interrupt;
}

int kr_proc_read_record(int fd, void *rec, size_t size, double deadline) {
  size_t got = 0;
  while (got < size) {
    if (interrupted()) return KR_RECORD_INTERRUPTED;
    double left = deadline - kr_now_s();
    if (left <= 0) return KR_RECORD_LATE;
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    int k = poll(&pf, 1, (int)(left * 1000.0) + 1);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) continue; /* the loop head decides whether time is up */
    ssize_t n = read(fd, (char *)rec + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    got += (size_t)n;
  }
  return 1;
}
