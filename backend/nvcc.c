/* backend/nvcc.c: the nvcc driver (nvcc.h): finding nvcc, running it under a time limit on a
 * private copy of the source, and the content-addressed cubin cache. Reading nvcc's output is
 * nvcc_parse.c. */
#define _GNU_SOURCE /* memmem */
#include "backend/nvcc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "frontend/headers.h"

/* Flags of every compile, after -arch and what it builds (kCubin or kShared); part of the cache key. */
static const char *const kFlags[] = {"-std=c++17", "-O3", "-Xptxas", "-v", "-lineinfo"};
static const char kCubin[] = "-cubin";
static const char *const kShared[] = {"-shared", "-Xcompiler", "-fPIC", "-cudart", "static"};
#define KR_NFIXED (sizeof kFlags / sizeof kFlags[0])
#define KR_ENTRY_MAGIC "krewrite-cubin 1\n"
#define KR_MAX_HEADERS 64   /* quoted #includes followed for the cache key */

/* ---- Files ------------------------------------------------------------------------------------- */

/* A whole binary file into the arena (kr_file_read stops at the 16 MiB a source may have; a cubin
 * of a large template library can be bigger). False when it cannot be read. */
static bool slurp(const char *path, KrArena *a, char **data, size_t *len) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (!f) return false;
  bool ok = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
  size_t n = ok ? (size_t)st.st_size : 0;
  char *buf = ok ? kr_arena_alloc(a, n + 1) : NULL;
  ok = ok && fread(buf, 1, n, f) == n && fgetc(f) == EOF;
  fclose(f);
  if (!ok) return false;
  *data = buf;
  *len = n;
  return true;
}

/* ---- Finding nvcc ------------------------------------------------------------------------------ */

KrStatus kr_nvcc_find_in(const char *cudacxx, const char *default_path, const char *path_var,
                         const char **path, KrArena *arena, KrDiags *diags) {
  *path = NULL;
  if (cudacxx && *cudacxx) {
    *path = strchr(cudacxx, '/') ? (kr_is_executable(cudacxx) ? kr_arena_strdup(arena, cudacxx) : NULL)
                                 : kr_path_search(cudacxx, path_var, arena);
    if (*path) return KR_OK;
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0,
                "CUDACXX is '%s', which is not an executable file%s (point it at nvcc, or unset "
                "it to use %s or the nvcc in PATH)",
                cudacxx, strchr(cudacxx, '/') ? "" : " in PATH",
                default_path ? default_path : "/usr/local/cuda/bin/nvcc");
    return KR_ERR;
  }
  if (default_path && kr_is_executable(default_path)) *path = kr_arena_strdup(arena, default_path);
  else *path = kr_path_search("nvcc", path_var, arena);
  if (*path) return KR_OK;
  kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0,
              "nvcc not found: CUDACXX is not set, %s is not there and no folder in PATH has "
              "nvcc (install the CUDA toolkit, or set CUDACXX to nvcc's path)",
              default_path ? default_path : "the default location");
  return KR_ERR;
}

KrStatus kr_nvcc_find(const char **path, KrArena *arena, KrDiags *diags) {
  return kr_nvcc_find_in(getenv("CUDACXX"), "/usr/local/cuda/bin/nvcc", getenv("PATH"), path, arena,
                         diags);
}

/* "Cuda compilation tools, release 13.0, V13.0.88", from nvcc --version; NULL (with an error)
 * when nvcc does not answer. */
static const char *version_line(const char *nvcc, double timeout_s, KrArena *a, KrDiags *d) {
  const char *argv[] = {nvcc, "--version", NULL};
  KrBuf out = {0};
  KrProcResult r;
  const char *line = NULL;
  KrStatus st = kr_proc_run(argv, NULL, timeout_s, &out, NULL, &r);
  const char *text = out.data ? out.data : "";
  const char *rel = strstr(text, "release ");
  if (st == KR_OK && !r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && rel) {
    const char *start = rel, *end = strchr(rel, '\n');
    while (start > text && start[-1] != '\n') start--;
    line = kr_arena_strndup(a, start, end ? (size_t)(end - start) : strlen(start));
  } else {
    kr_diag_pos(d, KR_DIAG_ERROR, nvcc, 0, 0, "'%s --version' did not print a release line (%s)%s%s",
                nvcc, st == KR_OK ? kr_proc_describe(&r, a) : "not started", *text ? ": " : "",
                text);
  }
  kr_buf_free(&out);
  return line;
}

/* ---- The cache key ------------------------------------------------------------------------------- */

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  s = s ? s + 1 : path;
  return *s ? s : "kernel.cu";
}

/* Adds to `key` each header that `text` includes from `dir` (#include "x" or <x> found there),
 * and theirs in turn, so that editing a header next to the kernel misses the cache. Headers of
 * the toolkit are covered by the nvcc version. */
static void add_headers(KrBuf *key, const char *dir, const char *text, size_t *budget, KrArena *a) {
  for (const char *p = text; p && *p && *budget; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    size_t n;
    const char *name = kr_header_included(p, &n);
    if (!name) continue;
    const char *file = kr_arena_printf(a, "%s/%.*s", dir, (int)n - 2, name + 1);
    char *data;
    size_t len;
    KrDiags *quiet = kr_diags_new();
    bool found = kr_file_read(file, a, &data, &len, quiet) == KR_OK;
    kr_diags_free(quiet);
    if (!found) continue;
    (*budget)--;
    kr_buf_printf(key, "%c%s%c", 0, file, 0);
    kr_buf_append(key, data, len);
    add_headers(key, kr_path_dir(file, a), data, budget, a);
  }
}

static const char *cache_key(const char *path, const char *text, size_t len, const char *arch,
                             const KrNvccOptions *o, const char *version, KrArena *a) {
  KrBuf b = {0};
  kr_buf_append(&b, KR_ENTRY_MAGIC, strlen(KR_ENTRY_MAGIC));
  kr_buf_append(&b, text, len);
  size_t budget = KR_MAX_HEADERS;
  const char *t = kr_arena_strndup(a, text, len);
  add_headers(&b, kr_build_source_dir(o->build, path, a), t, &budget, a);
  if (o->build) {
    for (size_t i = 0; i < o->build->include_dirs.len; i++) add_headers(&b, o->build->include_dirs.data[i], t, &budget, a);
    const char **args = kr_arena_alloc(a, (2 * (o->build->include_dirs.len + o->build->defines.len) + 1) * sizeof *args);
    size_t n = kr_build_args(o->build, args);
    kr_buf_printf(&b, "%cbuild", 0);
    for (size_t i = 0; i < n; i++) kr_buf_printf(&b, "%c%s", 0, args[i]);
  }
  kr_buf_printf(&b, "%c-arch=%s", 0, arch);
  if (o->shared)
    for (size_t i = 0; i < sizeof kShared / sizeof *kShared; i++) kr_buf_printf(&b, "%c%s", 0, kShared[i]);
  else
    kr_buf_printf(&b, "%c%s", 0, kCubin);
  for (size_t i = 0; i < KR_NFIXED; i++) kr_buf_printf(&b, "%c%s", 0, kFlags[i]);
  kr_buf_printf(&b, "%cextra", 0);
  for (size_t i = 0; i < o->nflags; i++) kr_buf_printf(&b, "%c%s", 0, o->flags[i]);
  kr_buf_printf(&b, "%c%s", 0, version);
  char hex[65];
  kr_sha256_hex(b.data, b.len, hex);
  kr_buf_free(&b);
  return kr_arena_strdup(a, hex);
}

/* ---- Cache entries -------------------------------------------------------------------------------
 * One file: a header of text lines, then the nvcc log, then the cubin.
 *   krewrite-cubin 1
 *   sha256 <hex of the cubin>
 *   cubin <bytes>
 *   log <bytes>
 *   tmp <the temporary source path the log names>
 *   <empty line> */

typedef enum { ENTRY_MISS, ENTRY_HIT, ENTRY_DAMAGED } EntryState;

typedef struct Entry {
  const char *log, *tmp_path;
  void *cubin;
  size_t size;
} Entry;

static bool header_field(const char **p, const char *name, const char **value, size_t *n) {
  size_t k = strlen(name);
  const char *nl = strchr(*p, '\n');
  if (!nl || strncmp(*p, name, k) != 0 || (*p)[k] != ' ') return false;
  *value = *p + k + 1;
  *n = (size_t)(nl - *value);
  *p = nl + 1;
  return true;
}

static bool read_size(const char *s, size_t n, size_t *v) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno || end != s + n || n == 0) return false;
  *v = (size_t)x;
  return true;
}

static EntryState entry_read(const char *file, KrArena *a, Entry *e) {
  char *data;
  size_t len;
  if (access(file, F_OK) != 0) return ENTRY_MISS;
  bool ok = slurp(file, a, &data, &len);
  if (!ok || len < strlen(KR_ENTRY_MAGIC) || memcmp(data, KR_ENTRY_MAGIC, strlen(KR_ENTRY_MAGIC)))
    return ENTRY_DAMAGED;
  const char *p = data + strlen(KR_ENTRY_MAGIC), *sha, *cs, *ls, *tmp;
  size_t shan, csn, lsn, tmpn, cubin_n, log_n;
  if (!header_field(&p, "sha256", &sha, &shan) || shan != 64 || !header_field(&p, "cubin", &cs, &csn) ||
      !read_size(cs, csn, &cubin_n) || !header_field(&p, "log", &ls, &lsn) ||
      !read_size(ls, lsn, &log_n) || !header_field(&p, "tmp", &tmp, &tmpn) || *p != '\n')
    return ENTRY_DAMAGED;
  p++;
  size_t head = (size_t)(p - data);
  if (len - head != log_n + cubin_n) return ENTRY_DAMAGED;
  char hex[65];
  kr_sha256_hex(p + log_n, cubin_n, hex);
  if (memcmp(hex, sha, 64) != 0) return ENTRY_DAMAGED;
  e->log = kr_arena_strndup(a, p, log_n);
  e->tmp_path = kr_arena_strndup(a, tmp, tmpn);
  e->cubin = (void *)(p + log_n);
  e->size = cubin_n;
  return ENTRY_HIT;
}

/* A failure to store is a warning: the compile itself succeeded. */
static void entry_write(const char *file, const Entry *e, KrDiags *d) {
  char hex[65];
  kr_sha256_hex(e->cubin, e->size, hex);
  KrBuf b = {0};
  kr_buf_printf(&b, "%ssha256 %s\ncubin %zu\nlog %zu\ntmp %s\n\n", KR_ENTRY_MAGIC, hex, e->size,
                strlen(e->log), e->tmp_path);
  kr_buf_puts(&b, e->log);
  kr_buf_append(&b, e->cubin, e->size);
  KrDiags *quiet = kr_diags_new();
  if (kr_file_write_atomic(file, b.data, b.len, quiet) != KR_OK)
    kr_diag_pos(d, KR_DIAG_WARNING, file, 0, 0, "cannot store the cubin in the cache: %s",
                quiet->items.len ? quiet->items.data[0].message : "unknown error");
  kr_diags_free(quiet);
  kr_buf_free(&b);
}

/* ---- Compiling ---------------------------------------------------------------------------------------- */

typedef struct Job {
  const char *path, *nvcc, *arch;
  const KrNvccOptions *o;
  double timeout_s;
  const KrSource *src;
  KrArena *a;       /* scratch */
  KrDiags *d;
} Job;

/* nvcc's command line for `in` → `out`. */
static const char **command(const Job *j, const char *in, const char *out) {
  const KrBuildFlags *bf = j->o->build;
  size_t nbuild = bf ? 2 * (bf->include_dirs.len + bf->defines.len) : 0;
  const char **argv = kr_arena_alloc(j->a, (KR_NFIXED + j->o->nflags + nbuild + 18) * sizeof *argv);
  size_t n = 0;
  argv[n++] = j->nvcc;
  size_t al = strlen(j->arch);   /* an arch-specific target (sm_90a) only through -gencode: nvcc 13.0's -arch=sm_90a
                                  * also runs a plain sm_90 pass, which refuses wgmma */
  if (al > 3 && j->arch[al - 1] == 'a' && strncmp(j->arch, "sm_", 3) == 0)
    argv[n++] = kr_arena_printf(j->a, "-gencode=arch=compute_%s,code=%s", j->arch + 3, j->arch);
  else
    argv[n++] = kr_arena_printf(j->a, "-arch=%s", j->arch);
  if (j->o->shared)
    for (size_t i = 0; i < sizeof kShared / sizeof *kShared; i++) argv[n++] = kShared[i];
  else
    argv[n++] = kCubin;
  for (size_t i = 0; i < KR_NFIXED; i++) argv[n++] = kFlags[i];
  for (size_t i = 0; i < j->o->nflags; i++) argv[n++] = j->o->flags[i];
  argv[n++] = "-I";
  argv[n++] = kr_build_source_dir(bf, j->path, j->a);
  n += kr_build_args(bf, argv + n);
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n++] = "-x";
  argv[n++] = "cu";
  argv[n++] = in;
  argv[n] = NULL;
  return argv;
}

/* Runs nvcc in a fresh temporary folder; on success fills e (log, tmp path, cubin). */
static KrStatus run_nvcc(const Job *j, Entry *e) {
  const char *tmpdir = getenv("TMPDIR");
  char *dir = kr_arena_printf(j->a, "%s/krewrite-nvcc.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) {
    kr_diag_pos(j->d, KR_DIAG_ERROR, dir, 0, 0, "cannot create a build folder: %s", strerror(errno));
    return KR_ERR;
  }
  const char *in = kr_arena_printf(j->a, "%s/%s", dir, base_name(j->path));
  const char *out = kr_arena_printf(j->a, "%s/%s", dir, j->o->shared ? "out.so" : "out.cubin");
  KrStatus st = KR_ERR;
  KrBuf log = {0};
  KrProcResult r;
  size_t errors_before = j->d->nerrors;
  if (!kr_file_write(in, j->src->text, j->src->len)) {
    kr_diag_pos(j->d, KR_DIAG_ERROR, in, 0, 0, "cannot write: %s", strerror(errno));
  } else if (kr_proc_run(command(j, in, out), NULL, j->timeout_s, &log, NULL, &r) != KR_OK) {
    kr_diag_pos(j->d, KR_DIAG_ERROR, j->path, 0, 0, "%s", log.data ? log.data : "cannot run nvcc");
  } else if (r.timed_out) {
    kr_diag_pos(j->d, KR_DIAG_ERROR, j->path, 0, 0,
                "nvcc did not finish within %g s (it was stopped; a larger time limit may help)",
                j->timeout_s);
  } else {
    e->log = kr_arena_strndup(j->a, log.data ? log.data : "", log.len);
    e->tmp_path = in;
    kr_nvcc_parse_errors(e->log, in, j->src, j->o->build, j->d);
    bool ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
    char *cubin;
    if (ok && slurp(out, j->a, &cubin, &e->size)) {
      e->cubin = cubin;
      st = KR_OK;
    } else if (ok) {
      kr_diag_pos(j->d, KR_DIAG_ERROR, out, 0, 0, "nvcc succeeded but wrote no %s", j->o->shared ? "shared object" : "cubin");
    } else if (j->d->nerrors == errors_before) {
      kr_diag_pos(j->d, KR_DIAG_ERROR, j->path, 0, 0, "nvcc failed (%s)", kr_proc_describe(&r, j->a));
    }
  }
  kr_buf_free(&log);
  kr_dir_remove(dir);
  return st;
}

/* Fills `out` from a finished compile or a cache entry. */
static KrStatus finish(const Entry *e, KrArena *arena, KrCubin *out, const char *path, KrDiags *d) {
  out->data = kr_arena_alloc(arena, e->size ? e->size : 1);
  memcpy(out->data, e->cubin, e->size);
  out->size = e->size;
  out->log = kr_arena_strdup(arena, e->log);
  if (kr_ptxas_parse(e->log, arena, out) != KR_OK) {
    kr_diag_pos(d, KR_DIAG_ERROR, path, 0, 0, "cannot read the ptxas resource report in nvcc's output");
    return KR_ERR;
  }
  return KR_OK;
}

/* The cache entry's path, creating the folder; NULL (with a warning) when there is none. */
static const char *entry_path(const Job *j, const char *key) {
  const char *root = j->o->cache_dir && *j->o->cache_dir ? j->o->cache_dir : kr_cache_dir("cubin", j->a);
  if (kr_dir_make(root)) return kr_arena_printf(j->a, "%s/%s.krc", root, key);
  kr_diag_pos(j->d, KR_DIAG_WARNING, root, 0, 0, "cannot create the cubin cache (%s); compiling without it",
              strerror(errno));
  return NULL;
}

KrStatus kr_nvcc_compile(const char *path, const char *text, size_t len, const KrNvccOptions *o,
                         KrArena *arena, KrCubin *out, KrDiags *diags) {
  static const KrNvccOptions defaults = {0};
  *out = (KrCubin){.cache_path = ""};
  o = o ? o : &defaults;
  KrArena *a = kr_arena_new();
  KrSource src;
  Job j = {.path = path, .o = o, .src = &src, .a = a, .d = diags};
  j.arch = o->arch && *o->arch ? o->arch : KR_NVCC_DEFAULT_ARCH;
  /* wgmma (tensor_core { api = "wgmma" }, or a candidate's own) exists only on sm_90a, Hopper's
   * arch-specific target: the text decides, since a kernel that uses it builds for nothing else. */
  if (strcmp(j.arch, "sm_90") == 0 && text && memmem(text, len, "wgmma.", 6)) j.arch = "sm_90a";
  j.timeout_s = o->timeout_s > 0 ? o->timeout_s : KR_NVCC_DEFAULT_TIMEOUT_S;
  KrStatus st = KR_ERR;
  const char *version = NULL, *file = NULL;
  if (kr_source_from_text(&src, path, text, len, a, diags) != KR_OK ||
      kr_nvcc_find(&j.nvcc, a, diags) != KR_OK ||
      !(version = version_line(j.nvcc, j.timeout_s, a, diags)))
    goto done;
  out->arch = kr_arena_strdup(arena, j.arch);
  out->nvcc_version = kr_arena_strdup(arena, version);
  if (!o->no_cache) file = entry_path(&j, cache_key(path, text, len, j.arch, o, version, a));
  Entry e = {0};
  EntryState es = file ? entry_read(file, a, &e) : ENTRY_MISS;
  if (es == ENTRY_HIT) {
    kr_nvcc_parse_errors(e.log, e.tmp_path, &src, o->build, diags);  /* the warnings, again */
    out->from_cache = true;
  } else {
    if (es == ENTRY_DAMAGED) {
      kr_diag_pos(diags, KR_DIAG_NOTE, file, 0, 0,
                  "the cached cubin was damaged (its sha256 does not match); compiling again");
      unlink(file);
    }
    if (run_nvcc(&j, &e) != KR_OK) goto done;
  }
  st = finish(&e, arena, out, path, diags);
  if (st == KR_OK && file && es != ENTRY_HIT) entry_write(file, &e, diags);
  if (file) out->cache_path = kr_arena_strdup(arena, file);
done:
  kr_arena_free(a);
  return st;
}
