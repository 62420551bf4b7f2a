/* runtime/expr.c: a recursive-descent evaluator for runtime/expr.h. Overflow is reported rather
 * than wrapped, since a wrapped element count would allocate the wrong buffer. */
#include "runtime/expr.h"

#include <string.h>

typedef struct P {
  const char *s, *at;
  KrExprLookup lookup;
  void *ctx;
  KrArena *arena;
  const char *why;
} P;

static bool fail(P *p, const char *fmt, const char *what) {
  if (!p->why) p->why = kr_arena_printf(p->arena, fmt, what, (int)(p->at - p->s) + 1);
  return false;
}

static void blanks(P *p) {
  while (*p->at == ' ' || *p->at == '\t') p->at++;
}

static bool accept(P *p, char c) {
  blanks(p);
  if (*p->at != c) return false;
  p->at++;
  return true;
}

static bool is_ident(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && ((c >= '0' && c <= '9') || c == '.'));
}

static bool expr(P *p, int64_t *v);

static bool call(P *p, const char *name, int64_t *v) {
  int64_t a, b;
  if (!expr(p, &a) || !accept(p, ',') || !expr(p, &b) || !accept(p, ')'))
    return fail(p, "%s(a, b) expects two arguments (column %d)", name);
  if (strcmp(name, "min") == 0) *v = a < b ? a : b;
  else if (strcmp(name, "max") == 0) *v = a > b ? a : b;
  else {
    if (b == 0) return fail(p, "division by zero in %s (column %d)", name);
    *v = a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
  }
  return true;
}

static bool primary(P *p, int64_t *v) {
  blanks(p);
  const char *start = p->at;
  if (accept(p, '(')) return expr(p, v) && (accept(p, ')') || fail(p, "missing '%s' at column %d", ")"));
  if (accept(p, '-')) {
    if (!primary(p, v)) return false;
    *v = -*v;
    return true;
  }
  if (*p->at >= '0' && *p->at <= '9') {
    int64_t x = 0;
    while (*p->at >= '0' && *p->at <= '9') {
      if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *p->at - '0', &x))
        return fail(p, "number too large%s at column %d", "");
      p->at++;
    }
    *v = x;
    return true;
  }
  if (!is_ident(*p->at, true)) {
    char c[2] = {*p->at, 0};
    return fail(p, *c ? "unexpected '%s' at column %d" : "unexpected end%s at column %d", c);
  }
  while (is_ident(*p->at, false)) p->at++;
  char *name = kr_arena_strndup(p->arena, start, (size_t)(p->at - start));
  if (accept(p, '(')) {
    if (strcmp(name, "cdiv") && strcmp(name, "min") && strcmp(name, "max"))
      return fail(p, "unknown function '%s' (known: cdiv, min, max) at column %d", name);
    return call(p, name, v);
  }
  if (!p->lookup || !p->lookup(p->ctx, name, v)) {
    p->at = start;
    return fail(p, "undefined symbol '%s' at column %d", name);
  }
  return true;
}

static bool term(P *p, int64_t *v) {
  if (!primary(p, v)) return false;
  for (;;) {
    blanks(p);
    char op = *p->at;
    if (op != '*' && op != '/' && op != '%') return true;
    p->at++;
    int64_t r;
    if (!primary(p, &r)) return false;
    if (op == '*') {
      if (__builtin_mul_overflow(*v, r, v)) return fail(p, "overflow in '%s' at column %d", "*");
    } else {
      if (r == 0) return fail(p, "division by zero ('%s') at column %d", op == '/' ? "/" : "%");
      *v = op == '/' ? *v / r : *v % r;
    }
  }
}

static bool expr(P *p, int64_t *v) {
  if (!term(p, v)) return false;
  for (;;) {
    blanks(p);
    char op = *p->at;
    if (op != '+' && op != '-') return true;
    p->at++;
    int64_t r;
    if (!term(p, &r)) return false;
    bool o = op == '+' ? __builtin_add_overflow(*v, r, v) : __builtin_sub_overflow(*v, r, v);
    if (o) return fail(p, "overflow in '%s' at column %d", op == '+' ? "+" : "-");
  }
}

KrStatus kr_expr_eval(const char *text, KrExprLookup lookup, void *ctx, int64_t *value,
                      KrArena *arena, const char **why) {
  P p = {.s = text, .at = text, .lookup = lookup, .ctx = ctx, .arena = arena};
  int64_t v = 0;
  bool ok = expr(&p, &v);
  blanks(&p);
  if (ok && *p.at) {
    char c[2] = {*p.at, 0};
    ok = fail(&p, "unexpected '%s' at column %d", c);
  }
  if (!ok) {
    *why = p.why ? p.why : "malformed expression";
    return KR_ERR;
  }
  *value = v;
  return KR_OK;
}
