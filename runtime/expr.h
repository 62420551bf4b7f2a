/* runtime/expr.h: the integer expressions of problem specs and launch changes:
 *   grid = "cdiv(n, 256)", count = "batch * rows * cols", grid = "cdiv(grid.x, 4)"
 * 64-bit integers; + - * / % with C semantics (division truncates), unary minus, parentheses;
 * functions cdiv(a, b) (rounding up), min(a, b), max(a, b); names are size symbols or dotted
 * launch values (grid.x, block.y, shmem) looked up through a callback. */
#ifndef KR_EXPR_H
#define KR_EXPR_H

#include "frontend/kr.h"

/* Returns true and sets *value when `name` is known. */
typedef bool (*KrExprLookup)(void *ctx, const char *name, int64_t *value);

/* Evaluates `text`. On failure returns KR_ERR and writes a one-line reason to *why (from the
 * arena): "undefined symbol 'm'", "division by zero", "unexpected ')' at column 7". */
KrStatus kr_expr_eval(const char *text, KrExprLookup lookup, void *ctx, int64_t *value,
                      KrArena *arena, const char **why);

#endif
