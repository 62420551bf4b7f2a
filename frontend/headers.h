/* frontend/headers.h: a header the compiler could not find, and the message that says so.
 * nvcc (whose host preprocessor is gcc) and the emulator's g++ both stop at a missing header with
 *   In file included from sub/b.cuh:4,
 *                    from a.cu:6:
 *   sub/c.cuh:3:10: fatal error: c.cuh: No such file or directory
 * (clang: an "In file included from" line per level and "fatal error: 'c.cuh' file not found").
 * Read from that, the report is the same for every build: an error at the #include that names the
 * header, with its line and a caret; the chain of includes that led there, outermost first, one note
 * per link ("a.cu:6: note: includes "sub/b.cuh" (…)"); the folders searched, in the order the
 * compiler searched them; and what to do about it (-I DIR, or a spec's include). The front end
 * itself never opens a header (preproc.h), so it has nothing to report. */
#ifndef KR_FRONTEND_HEADERS_H
#define KR_FRONTEND_HEADERS_H

#include "base/kr.h"

/* An #include on the way to the missing header: its file, as the compiler printed it, and line. */
typedef struct KrHeaderSite {
  const char *file;
  uint32_t line;
} KrHeaderSite;

typedef struct KrMissingHeader {
  const char *name;              /* as the compiler printed it, without quotes or brackets */
  KrVec(KrHeaderSite) chain;     /* outermost first; the last names `name` */
  size_t begin, end;             /* the bytes of the compiler's output that say so */
} KrMissingHeader;

/* The name an `#include "x"` or `#include <x>` at `line` (up to its end) spells: its opening quote
 * or bracket, and *len with both delimiters; NULL when the line is no such directive. */
const char *kr_header_included(const char *line, size_t *len);

/* How the build searched for headers, for the report's list of folders. */
typedef struct KrHeaderSearch {
  const KrSource *src;           /* the file built: its path names it, its text gives its lines */
  const char *tmp_path;          /* the name the compiler had for it (a copy), or NULL */
  const KrBuildFlags *flags;     /* the source's folder, the include folders (NULL: none) */
  bool source_dir_quoted_only;   /* the source's folder is searched for "…" only (g++'s -iquote) */
  const char *stand_ins;         /* in words, searched after the source's folder and before each -I
                                    (the emulator's stand-in CUDA headers); NULL: none */
  const char *last;              /* in words, what the compiler searches after them all */
} KrHeaderSearch;

/* The first header `log` (a compiler's output) says it cannot find: true with *out filled from the
 * arena, false when there is none. */
bool kr_header_missing_find(const char *log, KrArena *arena, KrMissingHeader *out);
/* The error and its notes (above) for m, into diags. The headers of the chain are read from the
 * disk, for their lines; the source's lines come from s->src. */
void kr_header_missing_report(const KrMissingHeader *m, const KrHeaderSearch *s, KrDiags *diags);

#endif
