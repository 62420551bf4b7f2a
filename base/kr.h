/* base/kr.h: the few things every part of krewrite shares: status codes, the arena, growable
 * arrays, a string buffer and collected diagnostics. They live in base/, the library every other
 * one depends on (DESIGN.md: dependencies point one way). */
#ifndef KR_H
#define KR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KR_VERSION "0.1.0"

typedef enum { KR_OK = 0, KR_SKIP = 1, KR_ERR = 2 } KrStatus;

/* ---- Arena -------------------------------------------------------------------------------------
 * Bump allocation in chunks; everything is freed at once by kr_arena_free (or kept for reuse by
 * kr_arena_reset). Allocations are aligned to 16 bytes. Out of memory aborts: there is no sane
 * way to go on, and a half-built kernel model is worse than a clear crash. */
typedef struct KrArena KrArena;

KrArena *kr_arena_new(void);
void kr_arena_free(KrArena *self);
void kr_arena_reset(KrArena *self);
void *kr_arena_alloc(KrArena *self, size_t size);   /* zeroed */
char *kr_arena_strndup(KrArena *self, const char *s, size_t n);
char *kr_arena_strdup(KrArena *self, const char *s);
char *kr_arena_printf(KrArena *self, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
char *kr_arena_vprintf(KrArena *self, const char *fmt, va_list ap);

/* ---- Growable arrays ---------------------------------------------------------------------------
 * KrVec(T) is an anonymous struct {data, len, cap}; the storage comes from an arena, so vectors
 * are never freed one by one. Growing copies into a new block (the old one stays in the arena
 * until it is freed), which is cheap for the small arrays a kernel model holds. */
#define KrVec(T) struct { T *data; size_t len, cap; }

void kr__vec_grow(KrArena *arena, void **data, size_t *cap, size_t elem, size_t need);

#define kr_vec_push(arena, v, x)                                                                  \
  do {                                                                                            \
    if ((v)->len == (v)->cap)                                                                     \
      kr__vec_grow((arena), (void **)&(v)->data, &(v)->cap, sizeof *(v)->data, (v)->len + 1);     \
    (v)->data[(v)->len++] = (x);                                                                  \
  } while (0)

/* ---- String buffer (heap; the owner calls kr_buf_free) ----------------------------------------- */
typedef struct KrBuf {
  char *data;
  size_t len, cap;
} KrBuf;

void kr_buf_append(KrBuf *self, const char *s, size_t n);
void kr_buf_puts(KrBuf *self, const char *s);
void kr_buf_putc(KrBuf *self, char c);
void kr_buf_printf(KrBuf *self, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kr_buf_vprintf(KrBuf *self, const char *fmt, va_list ap);
void kr_buf_json_string(KrBuf *self, const char *s, size_t n);  /* quoted, escaped */
void kr_buf_json_str(KrBuf *self, const char *s);   /* kr_buf_json_string, or null for NULL */
void kr_buf_json_num(KrBuf *self, double v);      /* %.6g; null for NaN or infinity */
char *kr_buf_steal(KrBuf *self);   /* NUL-terminated; the buffer is left empty */
void kr_buf_free(KrBuf *self);

/* ---- Source files ------------------------------------------------------------------------------ */
#define KR_SOURCE_MAX_BYTES (16u << 20)  /* 16 MiB: far beyond any hand-written kernel */

typedef struct KrSource {
  const char *path;      /* as given by the user, for messages */
  const char *text;      /* NUL-terminated */
  uint32_t len;
  uint32_t *line_starts; /* byte offset of each line */
  uint32_t nlines;
  /* The defines the file is built with (`NAME` or `NAME=VALUE`: a spec's `defines`, the command line's
   * `--define`), which the parser's view evaluates the file's conditionals with (preproc.h). */
  const char *const *defines;
  size_t ndefines;
} KrSource;

/* ---- Diagnostics -------------------------------------------------------------------------------
 * Collected in a list, printed by the CLI. line and col are 1-based; col counts bytes. */
typedef enum { KR_DIAG_ERROR, KR_DIAG_WARNING, KR_DIAG_NOTE } KrSeverity;

typedef struct KrDiag {
  KrSeverity severity;
  const char *path;      /* NULL: not tied to a file */
  uint32_t line, col;    /* 0: no position */
  const char *message;
  const char *source_line; /* NULL when there is no position */
} KrDiag;

typedef struct KrDiags {
  KrArena *arena;
  KrVec(KrDiag) items;
  size_t nerrors;
} KrDiags;

KrDiags *kr_diags_new(void);
void kr_diags_free(KrDiags *self);
/* Located at byte offset `at` of `src` (src may be NULL for an unlocated message). */
void kr_diag_at(KrDiags *self, KrSeverity sev, const KrSource *src, uint32_t at, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));
void kr_diag_vat(KrDiags *self, KrSeverity sev, const KrSource *src, uint32_t at, const char *fmt,
                 va_list ap);
/* Located by explicit path, line and column (1-based; 0 for none). */
void kr_diag_pos(KrDiags *self, KrSeverity sev, const char *path, uint32_t line, uint32_t col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void kr_diag_format(const KrDiag *d, KrBuf *out);   /* the message, source line and caret */
void kr_diags_format(const KrDiags *self, KrBuf *out);
/* The first error's message, else the first message of any kind; NULL when there is none. */
const char *kr_diags_first_error(const KrDiags *self);

/* ---- How a source is built (base/source.c) ----------------------------------------------------------
 * What the front end, nvcc and the emulator must all see the same way: the folder of the file's quoted
 * includes (the original's, also for a candidate made from it), more include folders (a spec's
 * `include`, the command line's -I), and defines (a spec's `defines`, the command line's --define). */
typedef struct KrBuildFlags {
  const char *source_dir;            /* NULL: the folder of the path being built */
  KrVec(const char *) include_dirs;
  KrVec(const char *) defines;       /* NAME or NAME=VALUE */
} KrBuildFlags;

/* `NAME` or `NAME=VALUE` with NAME an identifier: added (a later one of the same name replaces an
 * earlier); an error naming `what` (the flag or field) otherwise. */
KrStatus kr_build_define(KrBuildFlags *f, const char *def, const char *what, KrArena *arena, KrDiags *diags);
/* A folder that must exist: added; an error naming `what` otherwise ("-I", or "FILE: field" for one
 * reported against FILE). */
KrStatus kr_build_include(KrBuildFlags *f, const char *dir, const char *what, KrArena *arena, KrDiags *diags);
/* `add`'s folders and defines after f's (NULL: none). */
void kr_build_merge(KrBuildFlags *f, const KrBuildFlags *add, KrArena *arena);
/* The folder the source's quoted includes are found in: f's source_dir, else the folder of `path`. */
const char *kr_build_source_dir(const KrBuildFlags *f, const char *path, KrArena *arena);
/* A compiler's arguments for f: -I DIR for each folder, -D DEF for each define (n written, at most
 * 2 * (folders + defines)). */
size_t kr_build_args(const KrBuildFlags *f, const char **argv);
/* src parsed with f's defines. */
void kr_source_use(KrSource *src, const KrBuildFlags *f);

/* ---- Source loading (base/source.c) ------------------------------------------------------------ */
/* Reads a file, refusing directories, binary files (NUL bytes), invalid UTF-8 and files over
 * KR_SOURCE_MAX_BYTES, each with a located error. Storage comes from `arena`. */
KrStatus kr_source_read(KrSource *out, const char *path, KrArena *arena, KrDiags *diags);
/* Wraps text already in memory (copied into the arena), with the same checks. */
KrStatus kr_source_from_text(KrSource *out, const char *path, const char *text, size_t len,
                             KrArena *arena, KrDiags *diags);
uint32_t kr_source_line_of(const KrSource *self, uint32_t at);  /* 0-based line */
/* The byte in `self` where the first error of `d` is placed (its line and column, taken as this
 * text's), or `fallback` when it has no place inside the text. */
uint32_t kr_source_first_error_at(const KrSource *self, const KrDiags *d, uint32_t fallback);
const char *kr_source_line_text(const KrSource *self, uint32_t line, KrArena *arena);
/* The byte where text meant to precede the statement starting at `start` can be inserted: the
 * start of the first of the `#pragma` lines directly above it (blank lines between allowed), or
 * of its own line. *own_line is false when other code precedes it on its line; `start` is
 * returned then. */
uint32_t kr_source_head(const KrSource *self, uint32_t start, bool *own_line);

/* ---- Files ------------------------------------------------------------------------------------- */
/* Writes all of `data` to `path` through a temporary file in the same folder and a rename, so a
 * reader never sees a half-written file and a failed run leaves the old file as it was. */
KrStatus kr_file_write_atomic(const char *path, const char *data, size_t len, KrDiags *diags);
/* Reads a whole (text or binary) file into an arena; NUL-terminated. */
KrStatus kr_file_read(const char *path, KrArena *arena, char **data, size_t *len, KrDiags *diags);
void kr_sha256_hex(const void *data, size_t len, char out[65]);
/* The folder part of a path: "a/b.cu" -> "a", "b.cu" -> ".", "/b.cu" -> "/". */
const char *kr_path_dir(const char *path, KrArena *arena);

#endif
