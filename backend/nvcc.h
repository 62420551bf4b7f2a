/* backend/nvcc.h: the nvcc/ptxas driver (DESIGN.md, "backend/"). A .cu text is compiled to a
 * cubin by nvcc, run with an argv array (no shell) under a time limit in a private temporary
 * folder; nvcc's messages come back as diagnostics located in the user's file; the ptxas -v
 * report becomes per-kernel resources (registers, barriers, stack, spills, shared and constant
 * memory). Results are cached by content, so compiling the same text twice costs one nvcc run.
 *
 * The cache: one file per entry, <cache_dir>/<key>.krc, key = sha256(source text, the text of the
 * headers it includes with #include "..." from its folder, arch, extra flags, the fixed flags, the
 * nvcc version line). The entry holds the cubin, its sha256 and nvcc's full log (warnings and the
 * ptxas report, re-parsed on a hit, so a cached compile reports what the first did). Entries are
 * written to a temporary file and renamed, so concurrent compiles of the same text are safe; an
 * entry whose cubin does not match its sha256 is reported (a note), deleted and rebuilt.
 *
 * Environment: CUDACXX names nvcc (a path, or a name searched in PATH); XDG_CACHE_HOME moves the
 * cache. The cubin's line info names the temporary copy of the source, not `path`. */
#ifndef KR_NVCC_H
#define KR_NVCC_H

#include "base/kr.h"

typedef struct KrKernelResources {
  const char *name;        /* mangled, as ptxas prints it: "_Z2tkIfLi128EEvPKT_PS0_i", "scale_c" */
  const char *demangled;   /* "tk<float, 128>(float const*, float*, int)" (no "void "), or name */
  int registers, barriers;
  int stack_frame, spill_stores, spill_loads;  /* bytes */
  int smem, cmem;          /* static shared bytes; constant bank 0 bytes (0 when ptxas omits it,
                              as CUDA 13 does for sm_90) */
} KrKernelResources;

typedef struct KrCubin {
  void *data;              /* the cubin, in the arena */
  size_t size;
  KrVec(KrKernelResources) kernels;   /* in the order ptxas reports them */
  const char *arch;        /* "sm_90" */
  const char *nvcc_version;           /* "Cuda compilation tools, release 13.0, V13.0.88" */
  const char *log;         /* nvcc's full output, temporary paths as nvcc printed them */
  const char *cache_path;  /* the cache entry ("" with no_cache) */
  bool from_cache;
} KrCubin;

typedef struct KrNvccOptions {
  const char *arch;        /* NULL: sm_90 (the caller passes the device's when it knows it) */
  double timeout_s;        /* 0: KR_NVCC_DEFAULT_TIMEOUT_S */
  const char *cache_dir;   /* NULL: $XDG_CACHE_HOME/krewrite/cubin or ~/.cache/krewrite/cubin */
  bool no_cache;
  const char *const *flags; /* extra nvcc flags ("-maxrregcount=32"), part of the cache key */
  size_t nflags;
  const KrBuildFlags *build; /* the source's folder, include folders and defines (NULL: the path's
                              * folder only); part of the cache key, with the headers found there */
  bool shared;             /* build a host shared object instead of a cubin (a spec's entry on the
                            * GPU, runtime/prun.c): the whole text, host code included, with
                            * `-shared -Xcompiler -fPIC` and the static CUDA runtime in place of
                            * -cubin; KrCubin.data then holds the .so, and ptxas's report is read
                            * as for a cubin */
} KrNvccOptions;

#define KR_NVCC_DEFAULT_ARCH "sm_90"
/* One limit for every nvcc run: a schedule's long unrolled kernel compiles in tens of seconds. */
#define KR_NVCC_DEFAULT_TIMEOUT_S 300.0

/* Finds nvcc: $CUDACXX when set (a path, or a name looked up in PATH; a CUDACXX that names no
 * executable is an error, not a reason to pick another nvcc), else /usr/local/cuda/bin/nvcc, else
 * "nvcc" in PATH. An error saying where it looked when there is none. */
KrStatus kr_nvcc_find(const char **path, KrArena *arena, KrDiags *diags);
/* The same with the three places given (any may be NULL), for tests. */
KrStatus kr_nvcc_find_in(const char *cudacxx, const char *default_path, const char *path_var,
                         const char **path, KrArena *arena, KrDiags *diags);

/* Compiles `text` (`path` only names it in messages, and its folder, or o->build's source_dir, is
 * searched for quoted #includes) with
 *   nvcc -arch=<arch> -cubin -std=c++17 -O3 -Xptxas -v -lineinfo [flags...] -I <dir> [-I DIR...] [-D DEF...]
 *        -o OUT IN.cu
 * (with o->shared, `-shared -Xcompiler -fPIC -cudart static` in place of -cubin)
 * `o` may be NULL (defaults). KR_OK with *out filled (from the arena); KR_ERR with the reasons in
 * diags: nvcc's errors located in `path` with the source line and a caret, its other lines as
 * notes, a time-out, a missing nvcc. Warnings come back as warnings in both cases. */
KrStatus kr_nvcc_compile(const char *path, const char *text, size_t len, const KrNvccOptions *o,
                         KrArena *arena, KrCubin *out, KrDiags *diags);

/* Exposed for tests. */
/* Turns nvcc's output into diagnostics: "<tmp_path>(12): error: ..." and "<tmp_path>:3:10: fatal
 * error: ..." (the host preprocessor) are located in src->path at that line (the column from
 * nvcc's caret line, or gcc's); "ptxas error/warning/fatal : ..." become unlocated errors or
 * warnings; the rest (source echoes, "Remark: ...", "N errors detected") become notes of the
 * diagnostic before them, or are dropped when they only repeat what the diagnostic shows. ptxas
 * info lines are not diagnostics. A header that cannot be found is reported with its include chain
 * and the folders searched (frontend/headers.h): the source's (build's source_dir, or src->path's
 * folder), build's include folders (NULL: none), then nvcc's own. */
void kr_nvcc_parse_errors(const char *log, const char *tmp_path, const KrSource *src, const KrBuildFlags *build,
                          KrDiags *diags);
/* Parses the ptxas -v report in `log` into out->kernels (appending). KR_ERR when a line that
 * starts like a report line cannot be read. */
KrStatus kr_ptxas_parse(const char *log, KrArena *arena, KrCubin *out);
/* {"arch": "sm_90", "nvcc": "...", "from_cache": false, "kernels": [{"name": ..., "demangled":
 * ..., "registers": 32, "barriers": 1, "stack_frame": 0, "spill_stores": 0, "spill_loads": 0,
 * "smem": 4096, "cmem": 0}, ...]} */
void kr_cubin_resources_json(const KrCubin *c, KrBuf *out);
/* One line per kernel: "tk<float, 128>(float const*, float*, int): 12 registers, 1 barrier,
 * 512 B smem, 0 B stack, 0 B spill stores, 0 B spill loads". */
void kr_cubin_resources_text(const KrCubin *c, KrBuf *out);

#endif
