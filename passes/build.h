/* passes/build.h: the code builder every pass emits through. A KrCode is text being written for
 * one place of the file: it takes that place's indentation, the file's indentation step and its
 * newline style ("\r\n" in CRLF files), so emitted lines look like their neighbours; it hands out
 * fresh names checked against every name of the file; it splices existing statements back in,
 * re-indented and with parts substituted; and it ends as one edit.
 *
 *   KrCode c;
 *   kr_code_at(&c, cx, ts_node_start_byte(stmt));      // after the line's indentation
 *   kr_code_open(&c, "if (%s < n)", i);                // "if (i < n) {", one level deeper
 *   kr_code_line(&c, "const int %s = %s;", lane, i);
 *   kr_code_splice(&c, stmt, subst, nsubst);           // the statement, x[i] -> kr_x.x
 *   kr_code_close(&c);                                 // "}"
 *   kr_code_replace(&c, start, end);                   // the edit; c is done
 *
 * The first line written is indented only when the place starts a line (text put after a line's
 * indentation, or after other code, continues that line). Text is built on the heap and copied
 * into cx->arena by kr_code_replace / kr_code_text, which end the builder; kr_code_free drops
 * it unused. Nothing here prints or exits. */
#ifndef KR_BUILD_H
#define KR_BUILD_H

#include "frontend/affine.h"
#include "frontend/loops.h"
#include "passes/pass.h"

typedef struct KrCode {
  KrPassCtx *cx;
  KrBuf buf;
  const char *indent;   /* the indentation of the line holding the place */
  const char *unit;     /* one indentation step of the file ("  ", "    ", "\t") */
  const char *nl;       /* the newline of the place's line: "\n" or "\r\n" */
  int depth;            /* steps below `indent` */
  bool at_bol;          /* the next text starts a line (gets the indentation) */
} KrCode;

/* One substitution for kr_code_splice: bytes [start, end) of the source become `text`. */
typedef struct KrSubst {
  uint32_t start, end;
  const char *text;
} KrSubst;

/* ---- The place ------------------------------------------------------------------------------- */
void kr_code_at(KrCode *c, KrPassCtx *cx, uint32_t at);
/* The file's indentation step, read from the kernel body's first statement against the kernel's
 * own column (two spaces when that says nothing sensible). */
const char *kr_code_indent_unit(KrPassCtx *cx);
/* The newline of the line holding byte `at`. */
const char *kr_code_newline_at(const KrPassCtx *cx, uint32_t at);

/* ---- Writing --------------------------------------------------------------------------------- */
/* One line: indentation (at a line start), the text, a newline. */
void kr_code_line(KrCode *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line ending in " {", then one level deeper. */
void kr_code_open(KrCode *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line "{" opening a bare block, then one level deeper. */
void kr_code_block(KrCode *c);
/* One level shallower, then a line "}". */
void kr_code_close(KrCode *c);
/* Text as it is, indented first when at a line start; no newline added. */
void kr_code_puts(KrCode *c, const char *text);
void kr_code_printf(KrCode *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text exactly as it is, never indented: source text carried over whole, or an indentation
 * read from the source. */
void kr_code_raw(KrCode *c, const char *text);
/* A newline of the place's style. */
void kr_code_newline(KrCode *c);
/* The indentation of the current depth, when at a line start (so the text that follows the
 * edit, such as the statement it was put before, keeps its column). */
void kr_code_indent(KrCode *c);
/* Drops a newline at the end of what is written (an edit ending before the line's own
 * newline). */
void kr_code_trim(KrCode *c);
/* Bytes [start, end) of the source, each `subst` range (sorted, inside, not overlapping)
 * replaced by its text, re-indented: the first line goes at the current depth, and each later
 * line loses the first line's column of indentation (at most what it has) and gains the
 * current depth's. Newlines become the place's style. Ends with a newline. */
void kr_code_splice_range(KrCode *c, uint32_t start, uint32_t end, const KrSubst *subst,
                          size_t n);
/* The same for one statement (or any node). */
void kr_code_splice(KrCode *c, TSNode stmt, const KrSubst *subst, size_t n);
/* An affine form as C text with loop or index variable `var` replaced by `(text)`: with k
 * tiled, kr_code_affine(c, a, "k", "kt + kk"). */
void kr_code_affine(KrCode *c, const KrAffine *a, const char *var, const char *text);

/* ---- Names ----------------------------------------------------------------------------------- */
/* `base`, or base_1, base_2, …: the first that is no name the kernel can meet (any name of the
 * file outside comments, strings and other functions' bodies: frontend/scope.h,
 * kr_scope_name_in_code) and not yet in `taken`; it is added to `taken`. `taken` holds the names
 * one rewrite hands out, so two fresh names never collide. */
const char *kr_code_fresh(KrPassCtx *cx, KrNameSet *taken, const char *base);

/* ---- Ending: the edit ------------------------------------------------------------------------ */
/* Replaces bytes [start, end) by what is written (start == end inserts). */
void kr_code_replace(KrCode *c, uint32_t start, uint32_t end);
/* What is written, as an arena string. */
const char *kr_code_text(KrCode *c);
void kr_code_free(KrCode *c);

/* Puts `lines` (each one statement or declaration, no newline; none: nothing) before `stmt`: on lines
 * of their own above it (above the #pragma lines directly over it) when it starts its line, else
 * on its line before it; when `stmt` is not a statement of a { } block (the unbraced body of an
 * if or for), braces go around the lines and the statement so that declarations stay in scope
 * for it only. */
void kr_code_before(KrPassCtx *cx, TSNode stmt, const char *const *lines, size_t n);

#endif
