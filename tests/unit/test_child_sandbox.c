/* tests/unit/test_child_sandbox.c: the sandbox children enter before they load untrusted code
 * (runtime/sandbox.h). Each test forks a child that enters a policy and then does one thing; the
 * child's SIGSYS handler sends what was trapped through a pipe, so the test checks both that the
 * call was stopped and that the report names it. What must keep working (reading files, memory,
 * time, threads on the GPU policy) is checked the same way, by the child's exit status. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "runtime/sandbox.h"

/* The pipe the child's handler writes to: set in the child only, which has one thread. */
static int g_fd = -1;

static void on_sigsys(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  KrSandboxTrap t;
  kr_sandbox_trap_read(si, ctx, &t);
  if (write(g_fd, &t, sizeof t) != (ssize_t)sizeof t) _exit(98);
  _exit(99);
}

typedef int (*Body)(void *ctx);

typedef struct Outcome {
  int status;
  bool trapped;
  KrSandboxTrap trap;
} Outcome;

/* Forks; the child installs the handler, runs before() (may be NULL), enters `p` and returns
 * body()'s value as exit status. */
static Outcome in_child_after(const KrSandboxPolicy *p, Body before, Body body, void *ctx) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    g_fd = fds[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    if (before && before(ctx) != 0) _exit(96);
    char why[256];
    if (kr_sandbox_enter(p, NULL, why, sizeof why) != KR_OK) {
      fprintf(stderr, "%s\n", why);
      _exit(97);
    }
    _exit(body(ctx));
  }
  close(fds[1]);
  Outcome o = {0};
  o.trapped = read(fds[0], &o.trap, sizeof o.trap) == (ssize_t)sizeof o.trap;
  close(fds[0]);
  while (waitpid(pid, &o.status, 0) < 0 && errno == EINTR) {}
  return o;
}

static Outcome in_child(const KrSandboxPolicy *p, Body body, void *ctx) {
  return in_child_after(p, NULL, body, ctx);
}

static KrSandboxPolicy emu(void) { return kr_sandbox_policy(KR_SANDBOX_EMU); }
static KrSandboxPolicy gpu(void) { return kr_sandbox_policy(KR_SANDBOX_GPU); }

static const char *text_of(const Outcome *o, const KrSandboxPolicy *p, KrArena *a) {
  assert_true(o->trapped);
  return kr_sandbox_trap_text(&o->trap, p, a);
}

static void assert_has(const char *s, const char *part) {
  if (!strstr(s, part)) fail_msg("'%s' lacks '%s'", s, part);
}

/* ---- Bodies ---------------------------------------------------------------------------------------- */

static int do_exec(void *ctx) {
  (void)ctx;
  char *argv[] = {(char *)"true", NULL};
  execve("/bin/true", argv, NULL);
  return 1;
}

static int do_fork(void *ctx) {
  (void)ctx;
  pid_t p = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, 0, 0, 0, 0);
  if (p == 0) _exit(0);
  return 1;
}

static int do_system(void *ctx) {
  (void)ctx;
  return system("true") == 0 ? 1 : 2;
}

/* SIG_BLOCK fails (so that system() cannot hide its clone from the handler); SIG_SETMASK works. */
static int do_masks(void *ctx) {
  (void)ctx;
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  if (sigprocmask(SIG_BLOCK, &set, &old) == 0) return 2;
  if (sigprocmask(SIG_SETMASK, &set, &old) != 0) return 3;
  if (sigprocmask(SIG_UNBLOCK, &set, NULL) != 0) return 4;
  return 0;
}

static int do_write_open(void *ctx) {
  int fd = open((const char *)ctx, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  return fd >= 0 ? 1 : 2;
}

static int do_socket(void *ctx) {
  (void)ctx;
  return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 1 : 2;
}

static int do_kill_parent(void *ctx) {
  (void)ctx;
  kill(getppid(), SIGCONT);
  return 1;
}

static int do_unlink(void *ctx) {
  unlink((const char *)ctx);
  return 1;
}

static int do_huge_map(void *ctx) {
  (void)ctx;
  void *p = mmap(NULL, 64ull << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? 2 : 1;
}

/* Many mappings, each within the per-mapping limit: RLIMIT_AS refuses them past the total. */
static int do_many_maps(void *ctx) {
  (void)ctx;
  for (int i = 0; i < 16; i++) {
    void *p = mmap(NULL, 1ull << 30, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return errno == ENOMEM ? 0 : 2;
  }
  return 1;
}

/* What the emulator does all the time must still work. */
static int do_ordinary_work(void *ctx) {
  (void)ctx;
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  char buf[64];
  if (fd < 0 || read(fd, buf, sizeof buf) <= 0) return 2;
  close(fd);
  char *m = malloc(1 << 20);
  if (!m) return 3;
  memset(m, 1, 1 << 20);
  free(m);
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 4;
  if (write(STDERR_FILENO, "", 0) != 0) return 5;
  if (kill(getpid(), 0) != 0) return 6;
  return 0;
}

static void *thread_fn(void *arg) { return arg; }

static int do_thread(void *ctx) {
  (void)ctx;
  pthread_t t;
  if (pthread_create(&t, NULL, thread_fn, NULL) != 0) return 2;
  pthread_join(t, NULL);
  return 0;
}

/* A thread started before the sandbox (as the CUDA driver's are) that forks once told to. */
static int g_go[2];

static void *forker(void *arg) {
  (void)arg;
  char c;
  if (read(g_go[0], &c, 1) != 1) _exit(95);
  do_fork(NULL);
  _exit(1);  /* the fork went through */
}

static int start_forker(void *ctx) {
  (void)ctx;
  pthread_t t;
  return pipe(g_go) == 0 && pthread_create(&t, NULL, forker, NULL) == 0 ? 0 : 1;
}

static int release_forker(void *ctx) {
  (void)ctx;
  if (write(g_go[1], "x", 1) != 1) return 2;
  pause();
  return 3;
}

/* Writes 8 KiB to a descriptor opened before the sandbox, under a 4 KiB RLIMIT_FSIZE. */
static int do_big_write(void *ctx) {
  int fd = *(int *)ctx;
  static char block[8192];
  signal(SIGXFSZ, SIG_IGN);  /* to see EFBIG rather than the signal */
  ssize_t n = write(fd, block, sizeof block);
  if (n < 0) return errno == EFBIG ? 0 : 2;
  ssize_t m = write(fd, block, sizeof block);
  return n <= 4096 && m < 0 && errno == EFBIG ? 0 : 3;
}

/* Raising a limit again (root may, outside a user namespace). */
static int do_raise_limit(void *ctx) {
  (void)ctx;
  struct rlimit r = {RLIM_INFINITY, RLIM_INFINITY};
  return setrlimit(RLIMIT_AS, &r) == 0 ? 1 : 2;
}

static int do_spin(void *ctx) {
  (void)ctx;
  for (volatile unsigned long k = 0;; k++) {}
  return 1;
}

/* ---- Tests ----------------------------------------------------------------------------------------- */

static void emu_policy_has_memory_limits_and_gpu_policy_has_none(void **state) {
  (void)state;
  KrSandboxPolicy e = emu(), g = gpu();
  assert_true(e.mem_bytes > 0 && e.map_bytes > 0 && e.file_bytes > 0);
  assert_true(g.mem_bytes == 0 && g.map_bytes == 0 && g.file_bytes > 0);
}

static void ordinary_work_still_runs_in_the_emulator_sandbox(void **state) {
  (void)state;
  KrSandboxPolicy p = emu();
  Outcome o = in_child(&p, do_ordinary_work, NULL);
  assert_false(o.trapped);
  assert_true(WIFEXITED(o.status));
  assert_int_equal(WEXITSTATUS(o.status), 0);
}

static void exec_is_trapped_with_its_program(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrSandboxPolicy ps[2] = {emu(), gpu()};
  for (int i = 0; i < 2; i++) {
    Outcome o = in_child(&ps[i], do_exec, NULL);
    assert_int_equal(o.trap.nr, SYS_execve);
    assert_string_equal(text_of(&o, &ps[i], a), "run a program (execve '/bin/true')");
  }
  kr_arena_free(a);
}

static void system_is_trapped_with_the_handler_running(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrSandboxPolicy p = emu();
  Outcome o = in_child(&p, do_system, NULL);
  assert_string_equal(text_of(&o, &p, a), "run a program (clone with CLONE_VFORK, as system(), "
                                          "popen() and posix_spawn() do)");
  o = in_child(&p, do_masks, NULL);
  assert_false(o.trapped);
  assert_true(WIFEXITED(o.status));
  assert_int_equal(WEXITSTATUS(o.status), 0);
  kr_arena_free(a);
}

static void fork_is_trapped_on_both_policies(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrSandboxPolicy ps[2] = {emu(), gpu()};
  for (int i = 0; i < 2; i++) {
    Outcome o = in_child(&ps[i], do_fork, NULL);
    assert_string_equal(text_of(&o, &ps[i], a), "start a process (clone)");
  }
  kr_arena_free(a);
}

static void opening_a_file_for_writing_is_trapped_and_creates_nothing(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  char dir[] = "/tmp/kr-test-sandbox.XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *path = kr_arena_printf(a, "%s/pwned", dir);
  KrSandboxPolicy ps[2] = {emu(), gpu()};
  for (int i = 0; i < 2; i++) {
    Outcome o = in_child(&ps[i], do_write_open, (void *)path);
    const char *want = kr_arena_printf(a, "write the file '%s' (openat)", path);
    assert_string_equal(text_of(&o, &ps[i], a), want);
    assert_int_equal(access(path, F_OK), -1);
  }
  kr_dir_remove(dir);
  kr_arena_free(a);
}

static void sockets_signals_to_others_and_unlink_are_trapped(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  char victim[] = "/tmp/kr-test-victim.XXXXXX";
  int fd = mkstemp(victim);
  assert_true(fd >= 0);
  close(fd);
  KrSandboxPolicy ps[2] = {emu(), gpu()};
  for (int i = 0; i < 2; i++) {
    Outcome o = in_child(&ps[i], do_socket, NULL);
    assert_string_equal(text_of(&o, &ps[i], a), "open a network socket (socket AF_INET)");
    o = in_child(&ps[i], do_kill_parent, NULL);
    assert_has(text_of(&o, &ps[i], a), "send a signal to another process (kill ");
    o = in_child(&ps[i], do_unlink, victim);
    assert_has(text_of(&o, &ps[i], a), "remove the file '");
    assert_int_equal(access(victim, F_OK), 0);
  }
  unlink(victim);
  kr_arena_free(a);
}

static void a_huge_mapping_is_trapped_and_many_large_ones_hit_the_address_space_limit(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrSandboxPolicy p = emu();
  Outcome o = in_child(&p, do_huge_map, NULL);
  assert_has(text_of(&o, &p, a), "map 65536 MiB of memory at once, beyond the sandbox's 2048 MiB (mmap)");
  o = in_child(&p, do_many_maps, NULL);
  assert_false(o.trapped);
  assert_true(WIFEXITED(o.status));
  assert_int_equal(WEXITSTATUS(o.status), 0);
  kr_arena_free(a);
}

static void limits_cannot_be_raised_again(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrSandboxPolicy ps[2] = {emu(), gpu()};
  for (int i = 0; i < 2; i++) {
    Outcome o = in_child(&ps[i], do_raise_limit, NULL);
    assert_string_equal(text_of(&o, &ps[i], a), "change its resource limits (prlimit64)");
  }
  kr_arena_free(a);
}

static void the_gpu_policy_keeps_threads(void **state) {
  (void)state;
  KrSandboxPolicy p = gpu();
  Outcome o = in_child(&p, do_thread, NULL);
  assert_false(o.trapped);
  assert_true(WIFEXITED(o.status));
  assert_int_equal(WEXITSTATUS(o.status), 0);
}

static void threads_started_before_the_sandbox_are_confined_too(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrSandboxPolicy p = gpu();
  Outcome o = in_child_after(&p, start_forker, release_forker, NULL);
  assert_string_equal(text_of(&o, &p, a), "start a process (clone)");
  kr_arena_free(a);
}

static void writes_past_the_file_size_limit_fail(void **state) {
  (void)state;
  char path[] = "/tmp/kr-test-fsize.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  KrSandboxPolicy p = emu();
  p.file_bytes = 4096;
  Outcome o = in_child(&p, do_big_write, &fd);
  close(fd);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  unlink(path);
  assert_true(WIFEXITED(o.status));
  assert_int_equal(WEXITSTATUS(o.status), 0);
  assert_true(st.st_size <= 4096);
}

static void a_busy_loop_meets_the_cpu_limit(void **state) {
  (void)state;
  KrSandboxPolicy p = emu();
  p.cpu_s = 1;
  Outcome o = in_child(&p, do_spin, NULL);
  assert_true(WIFSIGNALED(o.status));
  assert_true(WTERMSIG(o.status) == SIGXCPU || WTERMSIG(o.status) == SIGKILL);
}

static void the_private_folder_is_made_and_entered(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *dir = kr_sandbox_dir_new(a, d);
  assert_non_null(dir);
  struct stat st;
  assert_int_equal(stat(dir, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(st.st_mode & 0777, 0700);
  kr_dir_remove(dir);
  kr_diags_free(d);
  kr_arena_free(a);
}

static void unknown_calls_are_named(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrSandboxTrap t = {.nr = SYS_reboot};
  KrSandboxPolicy p = emu();
  assert_string_equal(kr_sandbox_trap_text(&t, &p, a),
                      "make the system call 'reboot', which the sandbox does not allow");
  kr_arena_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(emu_policy_has_memory_limits_and_gpu_policy_has_none),
    cmocka_unit_test(ordinary_work_still_runs_in_the_emulator_sandbox),
    cmocka_unit_test(exec_is_trapped_with_its_program),
    cmocka_unit_test(system_is_trapped_with_the_handler_running),
    cmocka_unit_test(fork_is_trapped_on_both_policies),
    cmocka_unit_test(opening_a_file_for_writing_is_trapped_and_creates_nothing),
    cmocka_unit_test(sockets_signals_to_others_and_unlink_are_trapped),
    cmocka_unit_test(a_huge_mapping_is_trapped_and_many_large_ones_hit_the_address_space_limit),
    cmocka_unit_test(limits_cannot_be_raised_again),
    cmocka_unit_test(the_gpu_policy_keeps_threads),
    cmocka_unit_test(threads_started_before_the_sandbox_are_confined_too),
    cmocka_unit_test(writes_past_the_file_size_limit_fail),
    cmocka_unit_test(a_busy_loop_meets_the_cpu_limit),
    cmocka_unit_test(the_private_folder_is_made_and_entered),
    cmocka_unit_test(unknown_calls_are_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
