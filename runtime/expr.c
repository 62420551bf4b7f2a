/* runtime/expr.c: a recursive-descent evaluator for runtime/expr.h. Integer overflow is reported
 * rather than wrapped, since a wrapped element count would allocate the wrong buffer. */
#include "runtime/expr.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef KrExprValue V;

typedef struct P {
  const char *s, *at;
  KrExprLookup lookup;
  void *ctx;
  KrArena *arena;
  const char *why;
} P;

static V int_v(int64_t i) { return (V){.i = i, .f = (double)i}; }
static V float_v(double f) { return (V){.is_float = true, .f = f}; }
static double as_double(V v) { return v.is_float ? v.f : (double)v.i; }

/* Keeps the first reason, with the column of `at` appended: "division by zero ('/') at column 3". */
static bool fail(P *p, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(P *p, const char *at, const char *fmt, ...) {
  if (p->why) return false;
  va_list ap;
  va_start(ap, fmt);
  const char *m = kr_arena_vprintf(p->arena, fmt, ap);
  va_end(ap);
  p->why = kr_arena_printf(p->arena, "%s at column %d", m, (int)(at - p->s) + 1);
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

static bool digit(char c) { return c >= '0' && c <= '9'; }

static bool is_ident(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && (digit(c) || c == '.'));
}

static bool expr(P *p, V *v);

/* ---- Arithmetic ----------------------------------------------------------------------------------- */

/* l = l op r: integers when both are, with C's truncating division; else doubles. */
static bool arith(P *p, const char *at, char op, V *l, V r) {
  if (!l->is_float && !r.is_float) {
    int64_t x = l->i, y = r.i, z = 0;
    bool over = false;
    if (op == '+') over = __builtin_add_overflow(x, y, &z);
    else if (op == '-') over = __builtin_sub_overflow(x, y, &z);
    else if (op == '*') over = __builtin_mul_overflow(x, y, &z);
    else if (y == 0) return fail(p, at, "division by zero ('%c')", op);
    else if (x == INT64_MIN && y == -1) over = true;
    else z = op == '/' ? x / y : x % y;
    if (over) return fail(p, at, "overflow in '%c'", op);
    *l = int_v(z);
    return true;
  }
  if (op == '%') return fail(p, at, "'%%' takes integers, not floating-point values");
  double x = as_double(*l), y = as_double(r);
  if (op == '/' && y == 0) return fail(p, at, "division by zero ('/')");
  *l = float_v(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
  return true;
}

/* a to the power b for integers, exactly (b >= 0); overflow is an error. */
static bool int_pow(P *p, const char *at, int64_t a, int64_t b, int64_t *out) {
  if (b < 0)
    return fail(p, at, "pow(%lld, %lld): a negative power of an integer is not one (write pow(%lld.0, %lld))",
                (long long)a, (long long)b, (long long)a, (long long)b);
  if (a == 0 || a == 1) return *out = b == 0 ? 1 : a, true;
  if (a == -1) return *out = b % 2 ? -1 : 1, true;
  int64_t r = 1;
  for (int64_t k = 0; k < b; k++)   /* |a| >= 2: past 63 steps it has overflowed */
    if (__builtin_mul_overflow(r, a, &r)) return fail(p, at, "overflow in pow(%lld, %lld)", (long long)a, (long long)b);
  *out = r;
  return true;
}

/* name(args) after the '(' : cdiv, min, max, pow (two arguments), log2 (one). */
static bool call(P *p, const char *name, const char *at, V *v) {
  int want = strcmp(name, "log2") == 0 ? 1 : 2;
  V x[2] = {{0}, {0}};
  for (int i = 0; i < want; i++) {
    if (i && !accept(p, ',')) return fail(p, at, "%s(a, b) takes two arguments", name);
    if (!expr(p, &x[i])) return false;
  }
  if (!accept(p, ')')) return fail(p, at, want == 1 ? "%s(a) takes one argument" : "%s(a, b) takes two arguments", name);
  bool ints = !x[0].is_float && (want == 1 || !x[1].is_float);
  if (strcmp(name, "cdiv") == 0) {
    if (!ints) return fail(p, at, "cdiv(a, b) takes integers, not floating-point values");
    int64_t a = x[0].i, b = x[1].i;
    if (b == 0) return fail(p, at, "division by zero in cdiv");
    if (a == INT64_MIN && b == -1) return fail(p, at, "overflow in cdiv");
    *v = int_v(a / b + ((a % b != 0) && ((a < 0) == (b < 0))));
  } else if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0) {
    bool lo = name[1] == 'i';
    if (ints) *v = int_v(lo == (x[0].i < x[1].i) ? x[0].i : x[1].i);
    else *v = float_v(lo ? fmin(as_double(x[0]), as_double(x[1])) : fmax(as_double(x[0]), as_double(x[1])));
  } else if (strcmp(name, "pow") == 0) {
    int64_t r = 0;
    if (!ints) *v = float_v(pow(as_double(x[0]), as_double(x[1])));
    else if (!int_pow(p, at, x[0].i, x[1].i, &r)) return false;
    else *v = int_v(r);
  } else {   /* log2 */
    if (as_double(x[0]) <= 0)
      return fail(p, at, "log2 of %s: it needs a positive value",
                  x[0].is_float ? kr_arena_printf(p->arena, "%g", x[0].f) : kr_arena_printf(p->arena, "%lld", (long long)x[0].i));
    *v = ints ? int_v(63 - __builtin_clzll((unsigned long long)x[0].i)) : float_v(log2(x[0].f));
  }
  return true;
}

/* ---- The grammar ---------------------------------------------------------------------------------- */

/* 12, 1.0, 2e-3, .5: a '.' or an exponent makes a double. */
static bool number(P *p, V *v) {
  const char *start = p->at, *q = p->at;
  bool dbl = false;
  while (digit(*q)) q++;
  if (*q == '.') {
    dbl = true;
    for (q++; digit(*q);) q++;
  }
  if ((*q == 'e' || *q == 'E') && (digit(q[1]) || ((q[1] == '+' || q[1] == '-') && digit(q[2])))) {
    dbl = true;
    for (q += 2; digit(*q);) q++;
  }
  if (dbl) {
    *v = float_v(strtod(kr_arena_strndup(p->arena, start, (size_t)(q - start)), NULL));
    p->at = q;
    return true;
  }
  int64_t x = 0;
  for (; p->at < q; p->at++)
    if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *p->at - '0', &x))
      return fail(p, start, "number too large");
  *v = int_v(x);
  return true;
}

static bool primary(P *p, V *v) {
  blanks(p);
  const char *start = p->at;
  if (accept(p, '(')) return expr(p, v) && (accept(p, ')') || fail(p, p->at, "missing ')'"));
  if (accept(p, '-')) {
    if (!primary(p, v)) return false;
    if (v->is_float) *v = float_v(-v->f);
    else if (v->i == INT64_MIN) return fail(p, start, "overflow in '-'");
    else *v = int_v(-v->i);
    return true;
  }
  if (digit(*p->at) || (*p->at == '.' && digit(p->at[1]))) return number(p, v);
  if (!is_ident(*p->at, true)) {
    if (!*p->at) return fail(p, p->at, "unexpected end");
    return fail(p, p->at, "unexpected '%c'", *p->at);
  }
  while (is_ident(*p->at, false)) p->at++;
  char *name = kr_arena_strndup(p->arena, start, (size_t)(p->at - start));
  if (accept(p, '(')) {
    static const char *const fns[] = {"cdiv", "min", "max", "pow", "log2"};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
      if (strcmp(name, fns[i]) == 0) return call(p, name, start, v);
    return fail(p, start, "unknown function '%s' (known: cdiv, min, max, pow, log2)", name);
  }
  int64_t x;
  if (!p->lookup || !p->lookup(p->ctx, name, &x)) return fail(p, start, "undefined symbol '%s'", name);
  *v = int_v(x);
  return true;
}

static bool term(P *p, V *v) {
  if (!primary(p, v)) return false;
  for (;;) {
    blanks(p);
    const char *at = p->at;
    if (*at != '*' && *at != '/' && *at != '%') return true;
    p->at++;
    V r = {0};
    if (!primary(p, &r) || !arith(p, at, *at, v, r)) return false;
  }
}

static bool expr(P *p, V *v) {
  if (!term(p, v)) return false;
  for (;;) {
    blanks(p);
    const char *at = p->at;
    if (*at != '+' && *at != '-') return true;
    p->at++;
    V r = {0};
    if (!term(p, &r) || !arith(p, at, *at, v, r)) return false;
  }
}

/* ---- Entry points --------------------------------------------------------------------------------- */

KrStatus kr_expr_eval_value(const char *text, KrExprLookup lookup, void *ctx, KrExprValue *value,
                            KrArena *arena, const char **why) {
  P p = {.s = text, .at = text, .lookup = lookup, .ctx = ctx, .arena = arena};
  V v = {0};
  bool ok = expr(&p, &v);
  blanks(&p);
  if (ok && *p.at) ok = fail(&p, p.at, "unexpected '%c'", *p.at);
  if (ok && v.is_float && !isfinite(v.f)) {
    p.why = kr_arena_printf(arena, "the value is not a finite number (%g)", v.f);
    ok = false;
  }
  if (!ok) {
    *why = p.why ? p.why : "malformed expression";
    return KR_ERR;
  }
  *value = v;
  return KR_OK;
}

KrStatus kr_expr_eval(const char *text, KrExprLookup lookup, void *ctx, int64_t *value,
                      KrArena *arena, const char **why) {
  KrExprValue v;
  if (kr_expr_eval_value(text, lookup, ctx, &v, arena, why) != KR_OK) return KR_ERR;
  if (v.is_float) {
    *why = "a floating-point value where an integer is needed (a float literal such as 1.0, or "
           "pow or log2 of one, makes the expression floating)";
    return KR_ERR;
  }
  *value = v.i;
  return KR_OK;
}
