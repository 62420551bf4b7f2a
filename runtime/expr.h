/* runtime/expr.h: the expressions of problem specs and launch changes:
 *   grid = "cdiv(n, 256)", count = "batch * rows * cols", grid = "cdiv(grid.x, 4)",
 *   args = { "1.0 / n", "0.5 * (n - 1)", "log2(n)" }
 * Values are 64-bit integers or doubles, with C's rules: an operation on two integers is an
 * integer one (+ - * / % with C semantics: division truncates; overflow is an error), and one
 * with a double operand is a double one, so "1 / n" is integer division and "1.0 / n" is not. A
 * number with a '.' or an exponent (1.0, 2e-3, .5) is a double; '%' takes integers only. Unary
 * minus, parentheses; functions cdiv(a, b) (integers, rounding up), min(a, b), max(a, b),
 * pow(a, b) (integers: the exact power, b >= 0; else the double one) and log2(a) (an integer:
 * floor(log2 a); a double: log2 a; a must be positive). Names are size symbols, dotted launch
 * values (grid.x, block.y, shmem) or `sms` (the device's SMs, runtime/cuda.h: kr_cuda_sms), integers
 * looked up through a callback. */
#ifndef KR_EXPR_H
#define KR_EXPR_H

#include "base/kr.h"

/* Returns true and sets *value when `name` is known. */
typedef bool (*KrExprLookup)(void *ctx, const char *name, int64_t *value);

/* An expression's value: an integer, or a double when `is_float` (then `f` holds it). */
typedef struct KrExprValue {
  bool is_float;
  int64_t i;
  double f;
} KrExprValue;

/* Evaluates `text` where an integer is needed (a count, a grid, an int parameter). On failure
 * returns KR_ERR and writes a one-line reason to *why (from the arena): "undefined symbol 'm' at
 * column 5", "division by zero ('/') at column 3", "unexpected ')' at column 7", or for a double
 * result "'1.0 / n' is a floating-point value (a float literal or a function of one makes it so);
 * an integer is needed here". */
KrStatus kr_expr_eval(const char *text, KrExprLookup lookup, void *ctx, int64_t *value,
                      KrArena *arena, const char **why);

/* Evaluates `text` to either kind of value (a float parameter's argument). A double result must
 * be finite. */
KrStatus kr_expr_eval_value(const char *text, KrExprLookup lookup, void *ctx, KrExprValue *value,
                            KrArena *arena, const char **why);

#endif
