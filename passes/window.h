/* passes/window.h: a consumer that reduces a window of an array its producer stores (a max-pool), read
 * digit by digit against the producer's store (fuse's window consumers; the implicit GEMM's pooled
 * epilogue). The array's index is split at the strides the consumer's read uses (products of symbols,
 * the outermost first: P * Q, Q, 1 for `(nk * P + 2 * po + i) * Q + 2 * qo + j`); at each stride the
 * consumer has one parallel axis times a coefficient, plus perhaps one loop times another, and the
 * producer's part (its terms with the stride's symbols divided out) is that digit's value (n * K + k,
 * p, q for t[((n * K + k) * P + p) * Q + q]). Below the outermost digit, the producer's part must be
 * one axis running below the ratio of the strides, so that the two indices agree digit by digit. */
#ifndef KR_WINDOW_H
#define KR_WINDOW_H

#include "frontend/nest.h"

typedef struct KrWindowDigit {
  const char *syms[KR_NEST_MAX_SYMS];
  int nsyms;
  KrNestForm w;          /* the producer's part, the stride's symbols divided out */
  int axis;              /* the consumer's parallel axis here */
  long long coef;
  int loop;              /* its loop axis here, or -1 */
  long long lcoef;
} KrWindowDigit;

/* fuse's call after the producer's last statement with the array is KR_FUSE<consumer>(value, digits…,
 * the consumer's parameters), or KR_FUSE_ONLY<consumer>(…) when fuse { store = false } said that no
 * other launch reads the array (a schedule may then leave it unstored). */
#define KR_FUSE "kr_fuse_"
#define KR_FUSE_ONLY "kr_fuse_only_"

/* The consumer a callee of that call names (*only: by KR_FUSE_ONLY), or NULL for another callee. */
const char *kr_window_consumer(const char *callee, bool *only);

/* One output of the consumer as C text, over its own axis names: the declaration of its flat index
 * (`const int idx = …;`, "" when it has none), its guards joined by && ("" when none), and the index
 * of its store. */
void kr_window_output(const KrNest *cn, const KrNestRef *out, KrArena *a, const char **flat, const char **cond,
                      const char **index);

/* Splits the consumer's read `r` (over cn's axes) of `array` into digits, outermost first, and places
 * the producer's store `w` (over pn's axes) into them: NULL with *out and *ndigits, or the reason, with
 * *producer telling whether the producer's index (else the consumer's read) is at fault. */
const char *kr_window_split(const KrNest *cn, const KrNestForm *r, const char *array, const KrNest *pn,
                            const KrNestForm *w, KrWindowDigit **out, int *ndigits, bool *producer, KrArena *a);

/* Whether two forms are the same terms. */
bool kr_window_forms_equal(const KrNestForm *a, const KrNestForm *b);

#endif
