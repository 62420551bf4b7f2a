/* runtime/emu.c: building and loading emulator modules (emu.h): the emulator view of the .cu
 * (emu_view.c), the shim written once into the cache with its runtime compiled into an object and
 * its headers precompiled, g++ run (base/proc.h) with an argv array and a time limit, to
 * compile the view and then link it, its messages mapped back onto the .cu, the symbols the .cu
 * uses but does not define given slots that fault when used, the library cached under a content
 * hash with the headers it was built from listed beside it, and its kernels' signatures learnt
 * from a sandboxed probe child (emu_run.c): the library is never loaded into krewrite. Running the
 * kernels is emu_run.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "frontend/headers.h"
#include "runtime/emu_internal.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);  /* libstdc++ */

/* Flags of every build; they are part of the cache key. -fno-strict-aliasing because kernels cast
 * between float and float4 pointers freely; -ffp-contract=off so that a*b+c rounds the same on
 * every host (the device fuses, which a strict-fp32 tolerance absorbs). The memory checker
 * (kr_emu_check.h): -fsanitize=thread, without function entry and exit hooks, makes g++ call the
 * shim's __tsan_{read,write}* before every load and store; -nodefaultlibs and kLibs link the
 * usual libraries but not the sanitizer runtime (the shim is the runtime). -g1 gives the line
 * tables that turn the places of its findings into file:line; -fno-builtin-printf keeps kernel
 * printf going through the shim's (its FIFO limit); -fsanitize=alignment has the shim check each load
 * and store through a pointer against its type's alignment, as the GPU does (misaligned()). */
static const char *const kFlags[] = {
  "-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-strict-aliasing",
  "-fno-math-errno", "-ffp-contract=off", "-w", "-fno-diagnostics-show-caret",
  "-fdiagnostics-color=never", "-g1", "-fno-builtin-printf", "-fsanitize=thread", "-fsanitize=alignment",
  "-nodefaultlibs",
};
/* The runtime object's optimization (after kFlags, so it wins): it holds the memory checker, which
 * every instrumented load and store of shared memory enters, and is compiled once per cache; the
 * kernels' modules, compiled once per candidate, stay at -O1. Part of the cache key. */
static const char kRuntimeOpt[] = "-O2";
/* After the source: g++'s default libraries, less libtsan. */
static const char *const kLibs[] = {"-lstdc++", "-lm", "-lgcc_s", "-lgcc", "-lc"};
#define KR_NLIBS (sizeof kLibs / sizeof kLibs[0])
#define KR_NFLAGS (sizeof kFlags / sizeof kFlags[0])
#define KR_BUILD_TIMEOUT_S 300.0
#define KR_MAX_NOTES 40

static const char *cache_root(const char *cache_dir, KrArena *a) {
  return cache_dir && *cache_dir ? cache_dir : kr_cache_dir("emu", a);
}

static const char *cxx_name(void) {
  const char *c = getenv("KR_EMU_CXX");
  return c && *c ? c : "g++";
}

/* The compiler and the flags of every compile into argv (kFlags, then g++'s own); their count. */
static size_t base_args(const char **argv) {
  size_t n = 0;
  argv[n++] = cxx_name();
  for (size_t i = 0; i < KR_NFLAGS; i++) argv[n++] = kFlags[i];
  if (!strstr(cxx_name(), "clang")) {
    argv[n++] = "-fdiagnostics-column-unit=byte";
    argv[n++] = "--param";
    argv[n++] = "tsan-instrument-func-entry-exit=0";
  }
  return n;
}

/* What the compiled forms of the shim (its runtime object, its precompiled header) and the modules
 * depend on besides the files: the compiler's --version text, the name it is run by, and every
 * flag and library. */
static const char *build_key(const char *compiler, KrArena *a) {
  const char *argv[KR_NFLAGS + 8];
  size_t n = base_args(argv);
  KrBuf b = {0};
  kr_buf_printf(&b, "%s%c", compiler, 0);
  for (size_t i = 0; i < n; i++) kr_buf_printf(&b, "%s ", argv[i]);
  for (size_t i = 0; i < KR_NLIBS; i++) kr_buf_printf(&b, "%s ", kLibs[i]);
  kr_buf_printf(&b, "runtime %s", kRuntimeOpt);
  char hex[65];
  kr_sha256_hex(b.data, b.len, hex);
  kr_buf_free(&b);
  return kr_arena_strdup(a, hex);
}

/* ---- The shim, written into the cache once per version, compiler and flags -------------------------------- */

static void shim_hash(char out[65]) {
  KrBuf b = {0};
  for (size_t i = 0; i < kr__emu_nfiles; i++) {
    const KrEmuFile *f = &kr__emu_files[i];
    kr_buf_printf(&b, "%s\n%zu\n", f->path, f->len);
    kr_buf_append(&b, (const char *)f->data, f->len);
  }
  kr_sha256_hex(b.data ? b.data : "", b.len, out);
  kr_buf_free(&b);
}

/* <root>/shim-<hash>-<key>: filled in a temporary folder and renamed into place, so a reader sees
 * all of it or nothing. One per compiler and flags, since it holds what they compile
 * (runtime_object). */
static const char *shim_dir(const char *root, const char *hash, const char *key, KrArena *a, KrDiags *d) {
  const char *dir = kr_arena_printf(a, "%s/shim-%.16s-%.16s", root, hash, key);
  if (access(kr_arena_printf(a, "%s/kr_cuda_shim.h", dir), R_OK) == 0) return dir;
  char *tmp = kr_arena_printf(a, "%s/shim-tmp.XXXXXX", root);
  if (!mkdtemp(tmp)) {
    kr_diag_pos(d, KR_DIAG_ERROR, root, 0, 0, "cannot create the emulator cache: %s", strerror(errno));
    return NULL;
  }
  for (size_t i = 0; i < kr__emu_nfiles; i++) {
    const KrEmuFile *f = &kr__emu_files[i];
    char *p = kr_arena_printf(a, "%s/%s", tmp, f->path);
    char *slash = strrchr(p, '/');
    *slash = 0;
    bool ok = kr_dir_make(p);
    *slash = '/';
    if (!ok || !kr_file_write(p, f->data, f->len)) {
      kr_diag_pos(d, KR_DIAG_ERROR, p, 0, 0, "cannot write the emulator shim: %s", strerror(errno));
      kr_dir_remove(tmp);
      return NULL;
    }
  }
  if (rename(tmp, dir) != 0) kr_dir_remove(tmp);  /* another process was first: use theirs */
  if (access(kr_arena_printf(a, "%s/kr_cuda_shim.h", dir), R_OK) != 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, dir, 0, 0, "cannot install the emulator shim: %s", strerror(errno));
    return NULL;
  }
  return dir;
}

/* Runs the compiler with the flags of every compile, then `extra` (NULL-terminated) and -o, into a
 * temporary folder of the shim, and renames the result to `dest`, so that it is whole or absent.
 * False when it failed, with why in *log. */
static bool build_into(const char *shim, const char *const *extra, const char *dest, KrBuf *log, KrArena *a) {
  char *tmp = kr_arena_printf(a, "%s/tmp.XXXXXX", shim);
  if (!mkdtemp(tmp)) {
    kr_buf_printf(log, "cannot create a build folder in %s: %s", shim, strerror(errno));
    return false;
  }
  const char *out = kr_arena_printf(a, "%s/out", tmp);
  const char *argv[KR_NFLAGS + 16];
  size_t n = base_args(argv);
  while (*extra) argv[n++] = *extra++;
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n] = NULL;
  KrProcResult r = {0};
  bool ok = kr_proc_run(argv, NULL, KR_BUILD_TIMEOUT_S, log, NULL, &r) == KR_OK && !r.timed_out &&
            WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
  if (r.timed_out) kr_buf_printf(log, "(did not finish within %.0f s)", KR_BUILD_TIMEOUT_S);
  if (ok && rename(out, dest) != 0) {
    kr_buf_printf(log, "cannot store %s: %s", dest, strerror(errno));
    ok = false;
  }
  kr_dir_remove(tmp);
  return ok;
}

/* The shim precompiled into <shim>/kr_cuda_shim.h.gch, which g++ then reads for `-include
 * <shim>/kr_cuda_shim.h` instead of parsing the headers again (it checks that the flags agree, and
 * reads the headers when they do not). Made in place, since g++'s messages name the files that a
 * precompiled header was made from. GCC's only: clang would find the file and refuse it. Best
 * effort: a module builds without it. */
static void precompile(const char *shim, const char *compiler, KrArena *a) {
  if (strstr(cxx_name(), "clang") || !strstr(compiler, "Free Software Foundation")) return;
  const char *extra[] = {"-x", "c++-header", kr_arena_printf(a, "%s/kr_cuda_shim.h", shim), NULL};
  KrBuf log = {0};
  build_into(shim, extra, kr_arena_printf(a, "%s/kr_cuda_shim.h.gch", shim), &log, a);
  kr_buf_free(&log);
}

/* <shim>/runtime.o: the shim's runtime (kr_emu_runtime.cc) compiled once with the flags of every
 * module, which each module links instead of compiling it again. The precompiled header is made
 * first, so a reader that finds runtime.o finds it too. Other processes wait on a lock meanwhile
 * rather than repeat the work (where the lock does not work, they repeat it: each result is
 * renamed into place whole). */
static const char *runtime_object(const char *shim, const char *compiler, KrArena *a, KrDiags *d) {
  const char *obj = kr_arena_printf(a, "%s/runtime.o", shim);
  if (access(obj, R_OK) == 0) return obj;
  int lock = open(kr_arena_printf(a, "%s/runtime.lock", shim), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock >= 0) flock(lock, LOCK_EX);
  bool ok = access(obj, R_OK) == 0;  /* another process built it meanwhile */
  if (!ok) {
    precompile(shim, compiler, a);
    const char *src = kr_arena_printf(a, "%s/kr_emu_runtime.cc", shim);
    const char *extra[] = {kRuntimeOpt, "-c", "-x", "c++", src, NULL};
    KrBuf log = {0};
    ok = build_into(shim, extra, obj, &log, a);
    if (!ok)
      kr_diag_pos(d, KR_DIAG_ERROR, src, 0, 0, "the C++ compiler failed to build the emulator's runtime: %s",
                  log.data ? log.data : "no output");
    kr_buf_free(&log);
  }
  if (lock >= 0) close(lock);
  return ok ? obj : NULL;
}

/* ---- g++'s messages onto the .cu --------------------------------------------------------------------------- */

typedef struct Loc {
  const char *file;  /* NUL-terminated copy */
  uint32_t line, col;
  const char *rest;  /* after "file:line:col: " */
} Loc;

/* Parses "file:line:col: rest" (col optional when `need_col` is false). */
static bool parse_loc(KrArena *a, const char *s, bool need_col, Loc *loc) {
  for (const char *c = strchr(s, ':'); c; c = strchr(c + 1, ':')) {
    const char *p = c + 1;
    if (*p < '0' || *p > '9') continue;
    uint32_t line = (uint32_t)strtoul(p, (char **)&p, 10), col = 0;
    if (*p == ':' && p[1] >= '0' && p[1] <= '9') col = (uint32_t)strtoul(p + 1, (char **)&p, 10);
    else if (need_col) continue;
    if (*p != ':' && *p != ',' && *p != 0) continue;
    loc->file = kr_arena_strndup(a, s, (size_t)(c - s));
    loc->line = line;
    loc->col = col;
    loc->rest = *p == ':' ? p + 1 + (p[1] == ' ') : p;
    return true;
  }
  return false;
}

static bool severity_of(const char *rest, KrSeverity *sev, const char **msg) {
  static const struct { const char *word; KrSeverity sev; } kinds[] = {
    {"fatal error: ", KR_DIAG_ERROR}, {"error: ", KR_DIAG_ERROR},
    {"warning: ", KR_DIAG_WARNING}, {"note: ", KR_DIAG_NOTE},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    size_t n = strlen(kinds[i].word);
    if (strncmp(rest, kinds[i].word, n) == 0) {
      *sev = kinds[i].sev;
      *msg = rest + n;
      return true;
    }
  }
  return false;
}

typedef struct Mapper {
  const KrEmuView *view;
  const char *path, *shim;
  const KrBuildFlags *flags;
  KrDiags *d;
  KrArena *a;
  size_t errors, notes;
  const char *entry_failed;  /* the last kernel whose entry got an error */
  uint32_t ctx_line, ctx_col; /* the .cu line that led into a header ("required from here",
                                 "In file included from"), for an error reported in the header */
} Mapper;

static void note(Mapper *m, const char *fmt, const char *text) {
  if (m->notes++ >= KR_MAX_NOTES) return;
  kr_diag_pos(m->d, KR_DIAG_NOTE, NULL, 0, 0, fmt, text);
}

static void at_cu(Mapper *m, KrSeverity sev, uint32_t line, uint32_t col, const char *msg) {
  const KrSource *src = m->view->src;
  if (sev == KR_DIAG_NOTE && m->notes++ >= KR_MAX_NOTES) return;
  if (line == 0 || line > src->nlines) {
    kr_diag_pos(m->d, sev, m->path, line, col, "%s", msg);
  } else {
    uint32_t at = src->line_starts[line - 1] + (col ? col - 1 : 0);
    kr_diag_at(m->d, sev, src, at, "%s", msg);
  }
  if (sev == KR_DIAG_ERROR) m->errors++;
}

/* A shim header's path reads better without the cache folder. */
static const char *short_file(Mapper *m, const char *file) {
  size_t n = strlen(m->shim);
  if (strncmp(file, m->shim, n) == 0 && file[n] == '/') return kr_arena_printf(m->a, "<emulator shim>%s", file + n);
  return file;
}

/* An error in a shim header (a static_assert naming an unsupported intrinsic, an #error in a
 * stand-in header) is reported at the .cu line that led there, with the header's line as a note. */
static void header_line(Mapper *m, const Loc *loc, bool has_sev, KrSeverity sev, const char *msg) {
  if (!has_sev || strstr(msg, "macro 'KR_EMU_ENTRY'")) return;  /* context inside the headers */
  const char *where = kr_arena_printf(m->a, "%s:%u:%u", short_file(m, loc->file), loc->line, loc->col);
  if (sev == KR_DIAG_ERROR) {
    if (m->ctx_line) {
      at_cu(m, KR_DIAG_ERROR, m->ctx_line, m->ctx_col, msg);
    } else {
      kr_diag_pos(m->d, KR_DIAG_ERROR, m->path, 0, 0, "%s", msg);
      m->errors++;
    }
    m->ctx_line = m->ctx_col = 0;
  } else if (sev == KR_DIAG_NOTE && !strstr(msg, "candidate")) {
    return;  /* "… evaluates to false" and the like: noise; overload candidates are kept */
  }
  note(m, "%s", kr_arena_printf(m->a, "%s: %s", where, loc->rest));
}

static void map_line(Mapper *m, const char *line) {
  static const char entry[] = "<emulator entry for kernel '";
  const char *s = line;
  while (*s == ' ') s++;
  Loc loc;
  if (strncmp(s, "In file included from ", 22) == 0 || strncmp(s, "from ", 5) == 0) {
    s += *s == 'I' ? 22 : 5;
    if (parse_loc(m->a, s, false, &loc) && strcmp(loc.file, m->path) == 0)
      m->ctx_line = loc.line, m->ctx_col = 1;
    return;
  }
  KrSeverity sev = KR_DIAG_NOTE;
  const char *msg = NULL;
  if (!parse_loc(m->a, s, true, &loc)) return;  /* "In function …", "compilation terminated." */
  bool has_sev = severity_of(loc.rest, &sev, &msg);
  if (strcmp(loc.file, m->path) == 0) {
    if (!has_sev) {
      m->ctx_line = loc.line, m->ctx_col = loc.col;  /* "required from here" */
      return;
    }
    at_cu(m, sev, loc.line, loc.col, msg);
    if (sev == KR_DIAG_ERROR) m->ctx_line = m->ctx_col = 0;
  } else if (strncmp(loc.file, entry, sizeof entry - 1) == 0) {
    const char *name = loc.file + sizeof entry - 1;
    size_t n = strlen(name);
    const char *k = kr_arena_strndup(m->a, name, n >= 2 ? n - 2 : n);
    bool first = !m->entry_failed || strcmp(m->entry_failed, k) != 0;
    if (has_sev && sev == KR_DIAG_ERROR && first) {  /* one error per kernel, the rest as notes */
      kr_diag_pos(m->d, KR_DIAG_ERROR, m->path, 0, 0, "kernel '%s' cannot be called by the emulator: %s", k, msg);
      m->errors++;
      m->entry_failed = k;
    } else if (has_sev && !strstr(msg, "macro 'KR_EMU_ENTRY'")) {
      note(m, "%s", kr_arena_printf(m->a, "kernel '%s': %s", k, msg));
    }
  } else {
    header_line(m, &loc, has_sev, sev, msg);
  }
}

/* A header g++ could not find: reported with its include chain and the folders searched, as nvcc's
 * build reports it (frontend/headers.h). The view names the .cu by its path (#line), and its
 * folder is the source's by -iquote, for quoted names only. */
static void missing_header(Mapper *m, const KrMissingHeader *h) {
  KrHeaderSearch s = {.src = m->view->src, .flags = m->flags, .source_dir_quoted_only = true,
                      .stand_ins = "the emulator's stand-in CUDA headers",
                      .last = "the C++ compiler's system folders"};
  kr_header_missing_report(h, &s, m->d);
  m->errors++;
}

static void map_output(const KrEmuView *view, const KrBuildFlags *flags, const char *path, const char *shim,
                       const char *out, int status, KrDiags *d) {
  KrArena *a = kr_arena_new();
  Mapper m = {.view = view, .path = path, .shim = shim, .flags = flags, .d = d, .a = a};
  KrMissingHeader miss;
  bool missing = kr_header_missing_find(out, a, &miss);
  for (const char *s = out; *s;) {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s), at = (size_t)(s - out);
    if (!missing || at < miss.begin || at >= miss.end) map_line(&m, kr_arena_strndup(a, s, n));
    else if (at == miss.begin) missing_header(&m, &miss);
    s += n + (e != NULL);
  }
  if (m.errors == 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, path, 0, 0,
                "the C++ compiler failed to build the emulator module (wait status %d)", status);
    if (*out) note(&m, "compiler output: %s", out);
  }
  size_t shown = 0;
  for (size_t i = 0; i < view->syntax->items.len && shown < 5; i++) {
    const KrDiag *s = &view->syntax->items.data[i];
    if (s->severity != KR_DIAG_ERROR) continue;
    kr_diag_pos(d, KR_DIAG_NOTE, s->path, s->line, s->col, "the CUDA parser also reports: %s", s->message);
    shown++;
  }
  kr_arena_free(a);
}

/* ---- Compiling ------------------------------------------------------------------------------------------------ */

/* The compiler's --version text, part of the cache key. */
static const char *compiler_id(KrArena *a, KrDiags *d) {
  const char *argv[] = {cxx_name(), "--version", NULL};
  KrBuf out = {0};
  KrProcResult r;
  bool timed_out = false;
  const char *id = NULL;
  if (kr_proc_run(argv, NULL, 30.0, &out, NULL, &r) != KR_OK || (timed_out = r.timed_out) ||
      !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "the CPU emulator needs a C++ compiler, and '%s --version' failed: %s", cxx_name(),
                out.data ? out.data : (timed_out ? "timed out" : "no output"));
  } else {
    id = kr_arena_strndup(a, out.data ? out.data : "", out.len);
  }
  kr_buf_free(&out);
  return id;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  s = s ? s + 1 : path;
  return *s ? s : "kernel.cu";
}

/* The paths of a build: the view's copy in a temporary folder, and what the compiler makes there. */
typedef struct Build {
  const KrEmuView *view;
  const KrBuildFlags *flags;   /* the source's folder, include folders and defines; NULL: none */
  const char *path, *shim, *rt;
  const char *src, *obj, *deps, *stubs, *lib;  /* in the temporary folder */
  KrArena *a;
  KrDiags *d;
} Build;

typedef enum Ran { RAN_OK, RAN_FAILED, RAN_BROKEN } Ran;

/* Runs the compiler: RAN_OK when it exited 0; RAN_FAILED when it ran and refused, its output in
 * *out and its wait status in *status, for the caller to map; RAN_BROKEN when it could not run or
 * did not finish, with an error in b->d. */
static Ran run_cxx(const Build *b, const char *const *argv, KrBuf *out, int *status) {
  KrProcResult r;
  if (kr_proc_run(argv, NULL, KR_BUILD_TIMEOUT_S, out, NULL, &r) != KR_OK) {
    kr_diag_pos(b->d, KR_DIAG_ERROR, b->path, 0, 0, "cannot build for the CPU emulator: %s",
                out->data ? out->data : "");
    return RAN_BROKEN;
  }
  if (r.timed_out) {
    kr_diag_pos(b->d, KR_DIAG_ERROR, b->path, 0, 0, "the C++ compiler did not finish within %.0f s",
                KR_BUILD_TIMEOUT_S);
    return RAN_BROKEN;
  }
  *status = r.status;
  return WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 ? RAN_OK : RAN_FAILED;
}

/* The view into b->obj, with the headers it read listed in b->deps (-MMD: the system's are left
 * out). */
static bool compile_object(const Build *b) {
  const KrBuildFlags *f = b->flags;
  const char **argv = kr_arena_alloc(b->a, (KR_NFLAGS + 24 + (f ? 2 * (f->include_dirs.len + f->defines.len) : 0)) *
                                               sizeof *argv);
  size_t n = base_args(argv);
  argv[n++] = "-iquote";
  argv[n++] = kr_build_source_dir(f, b->path, b->a);
  argv[n++] = "-I";
  argv[n++] = kr_arena_printf(b->a, "%s/include", b->shim);
  n += kr_build_args(f, argv + n);   /* after the stand-ins, which a CUDA header's name finds first */
  argv[n++] = "-include";
  argv[n++] = kr_arena_printf(b->a, "%s/kr_cuda_shim.h", b->shim);
  argv[n++] = "-MMD";
  argv[n++] = "-MF";
  argv[n++] = b->deps;
  argv[n++] = "-c";
  argv[n++] = "-x";
  argv[n++] = "c++";
  argv[n++] = b->src;
  argv[n++] = "-o";
  argv[n++] = b->obj;
  argv[n] = NULL;
  KrBuf out = {0};
  int status = 0;
  Ran ran = run_cxx(b, argv, &out, &status);
  if (ran == RAN_FAILED) map_output(b->view, b->flags, b->path, b->shim, out.data ? out.data : "", status, b->d);
  kr_buf_free(&out);
  return ran == RAN_OK;
}

/* ---- Symbols the .cu uses but does not define --------------------------------------------------------
 * The host code of a real program calls functions of its other files and of libraries (a timer,
 * cuBLAS, the CUDA runtime's host API, which the stand-in headers only declare) and may use their
 * variables; the emulator links the .cu alone, and runs only its kernels. The module is linked
 * with -z defs, so that the linker names every such symbol, and if that is all it complains of,
 * linked again with each given a slot of its own in the section the runtime makes inaccessible
 * (kr_emu_abi.h, KR_EMU_MISSING_SECTION). A module that never uses them loads and runs; a call of
 * one, a read or a write faults in its slot, and the run names the symbol and the line that used
 * it (emu_run.c). Lazy binding would leave a called function to the dynamic loader, which ends the
 * process with a message naming the cache's file; variables would still fail the load. */

typedef KrVec(const char *) Names;

/* The symbol of one line of the linker's output, "…: undefined reference to `name'" (GNU ld; gold
 * quotes it with '), or NULL. */
static const char *undefined_in(const char *line, KrArena *a) {
  static const char word[] = "undefined reference to ";
  const char *s = strstr(line, word);
  if (!s || (s[sizeof word - 1] != '`' && s[sizeof word - 1] != '\'')) return NULL;
  s += sizeof word;
  const char *e = strchr(s, '\'');
  return e && e > s ? kr_arena_strndup(a, s, (size_t)(e - s)) : NULL;
}

/* The lines of the linker's output that come with its errors and say nothing by themselves. */
static bool context_line(const char *line) {
  return !*line || strstr(line, ": in function ") || strstr(line, "more undefined references to") ||
         strstr(line, "ld returned") || strstr(line, "warning: ") || strstr(line, "NOTE: ");
}

/* The symbols the linker found undefined, each once, into *names: false when its output holds
 * another error too (no slot helps with it), or none, or a name that cannot be written in the
 * assembler's quotes. */
static bool undefined_symbols(const char *out, Names *names, KrArena *a) {
  bool other = false;
  for (const char *s = out; *s;) {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    const char *line = kr_arena_strndup(a, s, n), *sym = undefined_in(line, a);
    bool seen = false;
    for (size_t i = 0; sym && i < names->len && !seen; i++) seen = strcmp(names->data[i], sym) == 0;
    if (sym && !seen) kr_vec_push(a, names, sym);
    if (!sym && !context_line(line)) other = true;
    if (sym && strpbrk(sym, "\"\\@")) other = true;
    s += n + (e != NULL);
  }
  return !other && names->len > 0;
}

/* The slots, as assembly: each symbol hidden (the module's own) and KR_EMU_MISSING_SLOT bytes of
 * a section without file contents, whose start and end are aligned to KR_EMU_MISSING_ALIGN so
 * that protecting it protects nothing else. */
static bool write_stubs(const Build *b, const Names *names) {
  KrBuf s = {0};
  kr_buf_printf(&s, "# the symbols %s uses but does not define (krewrite, runtime/emu.c)\n"
                "\t.section " KR_EMU_MISSING_SECTION ",\"aw\",%%nobits\n\t.balign %u\n",
                base_name(b->path), KR_EMU_MISSING_ALIGN);
  for (size_t i = 0; i < names->len; i++) {
    const char *n = names->data[i];
    kr_buf_printf(&s, "\t.globl \"%s\"\n\t.hidden \"%s\"\n\t.size \"%s\", %u\n\"%s\":\n\t.zero %u\n", n, n,
                  n, KR_EMU_MISSING_SLOT, n, KR_EMU_MISSING_SLOT);
  }
  kr_buf_printf(&s, "\t.balign %u\n\t.section .note.GNU-stack,\"\",%%progbits\n", KR_EMU_MISSING_ALIGN);
  bool ok = kr_file_write(b->stubs, s.data, s.len);
  if (!ok) kr_diag_pos(b->d, KR_DIAG_ERROR, b->stubs, 0, 0, "cannot write: %s", strerror(errno));
  kr_buf_free(&s);
  return ok;
}

/* Links the object with the runtime object (first, so that its static initialisers run before the
 * kernel's) and, when `stubs`, the slots, into b->lib. */
static Ran link_module(const Build *b, bool stubs, KrBuf *out, int *status) {
  const char *argv[KR_NFLAGS + KR_NLIBS + 20];
  size_t n = base_args(argv);
  argv[n++] = b->rt;
  argv[n++] = b->obj;
  if (stubs) {
    argv[n++] = "-x";
    argv[n++] = "assembler";
    argv[n++] = b->stubs;
    argv[n++] = "-x";
    argv[n++] = "none";
  }
  for (size_t i = 0; i < KR_NLIBS; i++) argv[n++] = kLibs[i];
  argv[n++] = "-Wl,-z,defs";
  argv[n++] = "-Wl,--no-demangle";
  argv[n++] = "-o";
  argv[n++] = b->lib;
  argv[n] = NULL;
  kr_buf_free(out);
  return run_cxx(b, argv, out, status);
}

/* The linker's output with the names it quotes (`_Z…', mangled: the link asks for that) demangled,
 * for people. */
static const char *demangled(const char *out, KrArena *a) {
  KrBuf b = {0};
  for (const char *s = out; *s;) {
    const char *q = strstr(s, "`_Z"), *e = q ? strchr(q, '\'') : NULL;
    if (!e) {
      kr_buf_puts(&b, s);
      break;
    }
    int status;
    char *d = __cxa_demangle(kr_arena_strndup(a, q + 1, (size_t)(e - q - 1)), NULL, NULL, &status);
    kr_buf_append(&b, s, (size_t)(q + 1 - s));
    if (d) kr_buf_puts(&b, d);
    else kr_buf_append(&b, q + 1, (size_t)(e - q - 1));
    free(d);
    s = e;
  }
  const char *t = kr_arena_strdup(a, b.data ? b.data : "");
  kr_buf_free(&b);
  return t;
}

/* The module from the object: linked as it is when it defines or links everything it uses, else
 * with the slots of what it does not. */
static bool link_with_slots(const Build *b) {
  KrBuf out = {0};
  int status = 0;
  Ran ran = link_module(b, false, &out, &status);
  Names names = {0};
  if (ran == RAN_FAILED && undefined_symbols(out.data ? out.data : "", &names, b->a)) {
    if (!write_stubs(b, &names)) ran = RAN_BROKEN;
    else ran = link_module(b, true, &out, &status);
  }
  if (ran == RAN_FAILED)
    map_output(b->view, b->flags, b->path, b->shim, demangled(out.data ? out.data : "", b->a), status, b->d);
  kr_buf_free(&out);
  return ran == RAN_OK;
}

/* ---- What else a module is built from -----------------------------------------------------------------
 * The cache key covers the view, the shim, the compiler and its flags, but not the headers the .cu
 * includes (its own, beside it, or a library's): g++ lists those (-MMD), and <key>.deps, written
 * next to the module, holds each one's path and a hash of its contents. A cached module whose
 * headers changed, or are gone, is built again. */

/* The next path of a make rule's prerequisites (g++ -MMD escapes a blank as "\ "), or NULL. */
static const char *next_dep(const char **p, KrArena *a) {
  const char *s = *p;
  while (*s == ' ' || *s == '\t' || *s == '\n' || (*s == '\\' && s[1] == '\n')) s += *s == '\\' ? 2 : 1;
  if (!*s) return NULL;
  KrBuf t = {0};
  for (; *s && *s != ' ' && *s != '\t' && *s != '\n'; s++) {
    if (*s == '\\' && s[1] == '\n') break;
    if (*s == '\\' && (s[1] == ' ' || s[1] == '#')) s++;
    else if (*s == '$' && s[1] == '$') s++;
    kr_buf_putc(&t, *s);
  }
  *p = s;
  const char *dep = kr_arena_strndup(a, t.data ? t.data : "", t.len);
  kr_buf_free(&t);
  return dep;
}

static bool hash_file(const char *path, char hex[65], KrArena *a) {
  KrDiags *scratch = kr_diags_new();
  char *data;
  size_t len;
  bool ok = kr_file_read(path, a, &data, &len, scratch) == KR_OK;
  if (ok) kr_sha256_hex(data, len, hex);
  kr_diags_free(scratch);
  return ok;
}

/* "<hash> <absolute path>" per header of b->deps that is neither the view nor the shim's, into
 * *manifest; false when one cannot be read. */
static bool manifest_of(const Build *b, KrBuf *manifest) {
  char *text;
  size_t len;
  KrDiags *scratch = kr_diags_new();
  bool ok = kr_file_read(b->deps, b->a, &text, &len, scratch) == KR_OK;
  kr_diags_free(scratch);
  const char *p = ok ? strchr(text, ':') : NULL;
  if (!p) return false;
  p++;
  size_t nshim = strlen(b->shim);
  for (const char *dep; ok && (dep = next_dep(&p, b->a));) {
    if (strcmp(dep, b->src) == 0 || (strncmp(dep, b->shim, nshim) == 0 && dep[nshim] == '/')) continue;
    char *abs = realpath(dep, NULL), hex[65];
    ok = abs && hash_file(abs, hex, b->a);
    if (ok) kr_buf_printf(manifest, "%s %s\n", hex, abs);
    free(abs);
  }
  return ok;
}

/* Whether the headers listed in `deps` are as they were when the module was built. */
static bool deps_current(const char *deps, KrArena *a) {
  char *text;
  size_t len;
  KrDiags *scratch = kr_diags_new();
  bool ok = kr_file_read(deps, a, &text, &len, scratch) == KR_OK;
  kr_diags_free(scratch);
  for (char *s = text; ok && *s;) {
    char *e = strchr(s, '\n'), hex[65];
    if (!e || e - s < 66 || s[64] != ' ') return false;
    *e = 0;
    ok = hash_file(s + 65, hex, a) && memcmp(hex, s, 64) == 0;
    s = e + 1;
  }
  return ok;
}

/* Compiles the view and links it into `so`, with `deps` beside it (through a temporary folder and
 * renames: the list first, so that a reader who finds the module finds its list). */
static KrStatus compile(const KrEmuView *view, const KrBuildFlags *flags, const char *path, const char *root,
                        const char *shim, const char *rt, const char *so, const char *deps, KrArena *a, KrDiags *d) {
  char *tmp = kr_arena_printf(a, "%s/build.XXXXXX", root);
  if (!mkdtemp(tmp)) {
    kr_diag_pos(d, KR_DIAG_ERROR, root, 0, 0, "cannot create a build folder: %s", strerror(errno));
    return KR_ERR;
  }
  Build b = {view, flags, path, shim, rt, kr_arena_printf(a, "%s/%s", tmp, base_name(path)),
             kr_arena_printf(a, "%s/module.o", tmp), kr_arena_printf(a, "%s/module.d", tmp),
             kr_arena_printf(a, "%s/missing.s", tmp), kr_arena_printf(a, "%s/module.so", tmp), a, d};
  KrStatus st = KR_ERR;
  KrBuf manifest = {0};
  if (!kr_file_write(b.src, view->text, view->len)) {
    kr_diag_pos(d, KR_DIAG_ERROR, b.src, 0, 0, "cannot write: %s", strerror(errno));
  } else if (compile_object(&b) && link_with_slots(&b)) {
    const char *list = kr_arena_printf(a, "%s/module.deps", tmp);
    if (!manifest_of(&b, &manifest)) {
      kr_diag_pos(d, KR_DIAG_ERROR, path, 0, 0, "cannot read the headers the C++ compiler says it included");
    } else if (!kr_file_write(list, manifest.data ? manifest.data : "", manifest.len) ||
               rename(list, deps) != 0 || rename(b.lib, so) != 0) {
      kr_diag_pos(d, KR_DIAG_ERROR, so, 0, 0, "cannot store the emulator module: %s", strerror(errno));
    } else {
      st = KR_OK;
    }
  }
  kr_buf_free(&manifest);
  kr_dir_remove(tmp);
  return st;
}

/* ---- Learning the signatures ------------------------------------------------------------------------ */

/* The module for `so` with its kernels' names; the signatures come from a probe child, since
 * they are the module's code (kr_entry_<i>_sig) and krewrite runs none of it itself. */
static KrEmuProbe open_module(const char *so, const KrEmuView *view, const char *path,
                              KrEmuModule **out, KrDiags *d) {
  KrArena *a = kr_arena_new();
  KrEmuModule *m = kr_arena_alloc(a, sizeof *m);
  m->arena = a;
  m->so = kr_arena_strdup(a, so);
  m->path = kr_arena_strdup(a, path);
  m->nentries = view->nnames;
  m->entries = kr_arena_alloc(a, (view->nnames + 1) * sizeof *m->entries);
  for (size_t i = 0; i < view->nnames; i++) m->entries[i].name = kr_arena_strdup(a, view->names[i]);
  KrEmuProbe p = kr__emu_probe(m, d);
  if (p == KR_EMU_PROBE_OK) *out = m;
  else kr_emu_module_free(m);
  return p;
}

static void copy_diags(KrDiags *to, const KrDiags *from) {
  for (size_t i = 0; i < from->items.len; i++) {
    const KrDiag *g = &from->items.data[i];
    kr_diag_pos(to, g->severity, g->path, g->line, g->col, "%s", g->message);
  }
}

bool kr_emu_module_syncs(const KrEmuModule *m) { return m && m->syncs; }

void kr_emu_module_free(KrEmuModule *m) {
  if (!m) return;
  kr_arena_free(m->arena);
}

const KrEmuEntry *kr__emu_entry(const KrEmuModule *m, const char *kernel) {
  KrArena *a = kr_arena_new();
  const char *norm = kr__emu_norm_name(a, kernel);
  const KrEmuEntry *found = NULL;
  for (size_t i = 0; i < m->nentries && !found; i++)
    if (strcmp(m->entries[i].name, norm) == 0) found = &m->entries[i];
  kr_arena_free(a);
  return found;
}

KrStatus kr_emu_kernel_params(const KrEmuModule *m, const char *kernel, size_t *nparams,
                              const size_t **sizes) {
  const KrEmuEntry *e = kr__emu_entry(m, kernel);
  if (!e) return KR_ERR;
  *nparams = e->nparams;
  *sizes = e->sizes;
  return KR_OK;
}

/* ---- Building ------------------------------------------------------------------------------------------------- */

/* The module's: the view, and what its shim folder is named by (the shim's files, so that a changed
 * shim header builds every module again; the compiler and flags, build_key), which is what the
 * runtime object it links is made from. The headers the .cu includes are checked apart, against
 * the list beside the module (deps_current). */
static const char *cache_key(const KrEmuView *view, const KrBuildFlags *flags, const char *path, const char *build,
                             const char *shim_hash, KrArena *a) {
  KrBuf b = {0};
  kr_buf_append(&b, view->text, view->len);
  kr_buf_printf(&b, "%c%s%c%s%cabi %d%c", 0, build, 0, shim_hash, 0, KR_EMU_ABI, 0);
  /* the folders headers are found in, and the defines (headers' contents: <key>.deps) */
  kr_buf_printf(&b, "quote %s%c", kr_build_source_dir(flags, path, a), 0);
  const char **args = kr_arena_alloc(a, (flags ? 2 * (flags->include_dirs.len + flags->defines.len) : 0) * sizeof *args + 1);
  size_t n = kr_build_args(flags, args);
  for (size_t i = 0; i < n; i++) kr_buf_printf(&b, "%s%c", args[i], 0);
  char hex[65];
  kr_sha256_hex(b.data, b.len, hex);
  kr_buf_free(&b);
  return kr_arena_strdup(a, hex);
}

/* Whether `word` occurs in the code of the text, outside comments (a string literal may still
 * count: a false "yes" only turns a check on). */
static bool mentions(const char *text, size_t len, const char *word) {
  size_t n = strlen(word);
  for (size_t i = 0; i + n <= len; i++) {
    if (text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
      while (i < len && text[i] != '\n') i++;
    } else if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
      for (i += 2; i + 1 < len && !(text[i] == '*' && text[i + 1] == '/');) i++;
      i++;
    } else if (memcmp(text + i, word, n) == 0) {
      return true;
    }
  }
  return false;
}

KrStatus kr_emu_build(const char *path, const char *text, size_t len, const char *const *kernels,
                      size_t nkernels, const char *cache_dir, KrEmuModule **out, KrDiags *diags) {
  return kr_emu_build_with(path, text, len, kernels, nkernels, NULL, cache_dir, out, diags);
}

KrStatus kr_emu_build_with(const char *path, const char *text, size_t len, const char *const *kernels, size_t nkernels,
                           const KrBuildFlags *flags, const char *cache_dir, KrEmuModule **out, KrDiags *diags) {
  return kr_emu_build_entry(path, text, len, kernels, nkernels, NULL, flags, cache_dir, out, diags);
}

KrStatus kr_emu_build_entry(const char *path, const char *text, size_t len, const char *const *kernels, size_t nkernels,
                            const char *entry, const KrBuildFlags *flags, const char *cache_dir, KrEmuModule **out,
                            KrDiags *diags) {
  *out = NULL;
  KrArena *a = kr_arena_new();
  KrEmuView view;
  KrStatus st = kr__emu_view(path, text, len, flags, kernels, nkernels, entry, a, &view, diags);
  const char *compiler = st == KR_OK ? compiler_id(a, diags) : NULL;
  const char *root = cache_root(cache_dir, a), *shim = NULL, *key = NULL, *rt;
  char hash[65];
  shim_hash(hash);
  if (compiler && !kr_dir_make(root)) {
    kr_diag_pos(diags, KR_DIAG_ERROR, root, 0, 0, "cannot create the emulator cache: %s", strerror(errno));
  } else if (compiler) {
    key = build_key(compiler, a);
    shim = shim_dir(root, hash, key, a, diags);
  }
  if (!shim) {
    st = KR_ERR;
    goto done;
  }
  const char *ckey = cache_key(&view, flags, path, key, hash, a);
  const char *so = kr_arena_printf(a, "%s/%s.so", root, ckey);
  const char *deps = kr_arena_printf(a, "%s/%s.deps", root, ckey);
  if (access(so, R_OK) == 0 && deps_current(deps, a)) {
    KrDiags *scratch = kr_diags_new();
    KrEmuProbe p = open_module(so, &view, path, out, scratch);
    if (p == KR_EMU_PROBE_FAILED) copy_diags(diags, scratch);
    kr_diags_free(scratch);
    if (p != KR_EMU_PROBE_DAMAGED) {
      st = p == KR_EMU_PROBE_OK ? KR_OK : KR_ERR;
      goto done;
    }
    unlink(so);  /* a damaged cache entry: build it again */
  }
  rt = runtime_object(shim, compiler, a, diags);
  st = rt ? compile(&view, flags, path, root, shim, rt, so, deps, a, diags) : KR_ERR;
  if (st == KR_OK) st = open_module(so, &view, path, out, diags) == KR_EMU_PROBE_OK ? KR_OK : KR_ERR;
done:
  if (st == KR_OK) (*out)->syncs = mentions(text, len, "__shared__") || mentions(text, len, "atomic");
  if (st == KR_OK && entry) (*out)->entry = kr_arena_strdup((*out)->arena, entry);
  kr__emu_view_free(&view);
  kr_arena_free(a);
  return st;
}
