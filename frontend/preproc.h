/* frontend/preproc.h: the preprocessor's conditionals in the parser's view of the text.
 *
 * `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif` groups are evaluated before parsing, the way
 * unifdef does: in a group whose outcome is known, the directive lines and the branches not taken
 * are blanked (every byte but newlines becomes a space), so byte offsets, lines and columns still
 * match the real text, code under a false condition is neither parsed nor modelled, and braces split
 * across branches parse. The text itself is never changed: nvcc and the emulator still see every
 * branch and decide for themselves, with the same defines.
 *
 * What is known: the file's own `#define`s and `#undef`s in the branches taken, the defines given to
 * krewrite (KrSource.defines: a spec's `defines`, the command line's `--define`), and what nvcc
 * predefines for the host pass (`__CUDACC__`, `__NVCC__`, `__cplusplus`). An identifier defined
 * nowhere is 0 and `defined(X)` false, as the preprocessor says, unless a header could define it: a
 * name that looks like the toolkit's or the compiler's (`__CUDA_ARCH__`, `CUDART_VERSION`, …), or
 * any name after a `#include "…"` of a local header. A group with such a condition (before the branch
 * taken) is left as it is, every branch visible, unless its branches split braces between them (then
 * its first branch is read, as if its condition held, and the others blanked); a group inside a branch
 * not taken is blanked with it. Headers are never opened: the view needs none of them, so a missing
 * one is no error here (`apply` rewrites a file whose headers are elsewhere); nvcc's build and the
 * emulator's report it, with the chain of includes and the folders searched (frontend/headers.h).
 *
 * What cannot be: an `#else`, `#elif` or `#endif` with no `#if`, or an `#if` with no `#endif`, is an
 * error at its line, and nothing is blanked. */
#ifndef KR_FRONTEND_PREPROC_H
#define KR_FRONTEND_PREPROC_H

#include "base/kr.h"

/* Blanks, in t (a copy of src's text, len bytes), what the conditionals above rule out. Errors go to
 * diags against src; returns the number of errors reported. */
size_t kr_preproc_view(char *t, uint32_t len, const KrSource *src, KrDiags *diags);

/* Evaluates one `#if` condition (the text after the keyword) against the defines `NAME` or
 * `NAME=VALUE` given (no file, no predefined macros): 1 or 0, or -1 when it cannot be (a
 * function-like macro, a syntax error). For tests and for specs' conditions. */
int kr_preproc_eval(const char *cond, const char *const *defines, size_t ndefines);

#endif
