/* frontend/consteval.h: integer constant expressions of a kernel, for trip counts and the sizes
 * passes must know (unroll factors, vector widths).
 *
 *   long long v;
 *   if (kr_const_eval(sc, bound, &v)) ...              // `N` with #define N 128 gives 128
 *
 * Constants are literals and names bound to constants the file shows: object-like `#define`s
 * (defined once, outside any `#if`, never `#undef`ed, before the use) and `const`/`constexpr`
 * integer variables with constant initializers at file scope or in the kernel (declared once,
 * before the use). Template parameters are not constants: their value depends on the
 * instantiation. The arithmetic is 64-bit and tracks widths: 32-bit operands that leave the int
 * range, division by zero and unsigned literals are not constants (the C++ program would
 * overflow or wrap). Macro bodies, which the parser leaves as text, are evaluated like the tree. */
#ifndef KR_CONSTEVAL_H
#define KR_CONSTEVAL_H

#include "frontend/scope.h"

/* The value of `expr`; false when it is not an integer constant expression. */
bool kr_const_eval(KrScope *sc, TSNode expr, long long *value);
/* The value of the text s[0..n) used at byte `use_at`; *wide (may be NULL) is set when the value
 * is 64-bit (a long literal, a wide cast or a value past the int range). */
bool kr_const_eval_text(KrScope *sc, const char *s, size_t n, uint32_t use_at, long long *value,
                        bool *wide);
/* The value of a name at byte `use_at` when the file shows it is a constant (see above). */
bool kr_const_of_name(KrScope *sc, const char *name, uint32_t use_at, long long *value,
                      bool *wide);

#endif
