/* frontend/consteval.c: integer constant expressions (consteval.h). A small evaluator over text,
 * so that macro bodies (which the parser leaves as raw text) and expressions from the tree are
 * handled alike. Values are tracked with their width: arithmetic between 32-bit operands that
 * leaves the int range is not a constant (the C++ program would overflow), and anything unsigned
 * is refused rather than modelled. */
#include "frontend/consteval.h"

#include <limits.h>
#include <string.h>

typedef struct Val {
  long long v;
  bool wide;   /* 64-bit (a long literal or a wide cast) */
} Val;

typedef struct Lex {
  KrScope *sc;
  int depth;         /* nesting of names evaluated through their definitions */
  const char *p, *end;
  uint32_t use_at;   /* where the expression is used, for "declared before use" */
  bool ok;
} Lex;

static bool const_of_name(KrScope *sc, const char *name, uint32_t use_at, int depth, Val *out);
static Val parse_cond(Lex *l);

static void skip_space(Lex *l) {
  for (;;) {
    while (l->p < l->end &&
           (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r' ||
            (*l->p == '\\' && l->p + 1 < l->end && (l->p[1] == '\n' || l->p[1] == '\r'))))
      l->p++;
    if (l->p + 1 < l->end && l->p[0] == '/' && l->p[1] == '/') {
      while (l->p < l->end && *l->p != '\n') l->p++;
    } else if (l->p + 1 < l->end && l->p[0] == '/' && l->p[1] == '*') {
      const char *e = l->p + 2;
      while (e + 1 < l->end && !(e[0] == '*' && e[1] == '/')) e++;
      l->p = e + 1 < l->end ? e + 2 : l->end;
    } else {
      return;
    }
  }
}

static bool accept(Lex *l, const char *tok) {
  skip_space(l);
  size_t n = strlen(tok);
  if ((size_t)(l->end - l->p) < n || strncmp(l->p, tok, n) != 0) return false;
  /* Do not split longer operators: '<' must not match "<<" or "<=", '&' not "&&". */
  char next = l->p + n < l->end ? l->p[n] : 0;
  if (n == 1 && (tok[0] == '<' || tok[0] == '>') && (next == tok[0] || next == '=')) return false;
  if (n == 1 && (tok[0] == '&' || tok[0] == '|') && next == tok[0]) return false;
  if (n == 1 && (tok[0] == '!' || tok[0] == '=') && next == '=') return false;
  if (n == 2 && (tok[0] == '<' || tok[0] == '>') && tok[1] == tok[0] && next == '=') return false;
  l->p += n;
  return true;
}

static Val fail(Lex *l) {
  l->ok = false;
  return (Val){0};
}

static Val check_range(Lex *l, Val r) {
  if (!r.wide && (r.v < INT_MIN || r.v > INT_MAX)) return fail(l);
  return r;
}

static Val number(Lex *l) {
  const char *s = l->p;
  int base = 10;
  if (l->end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16;
  else if (l->end - s > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2;
  else if (s[0] == '0') base = 8;
  const char *p = s + (base == 16 || base == 2 ? 2 : 0);
  unsigned long long v = 0;
  bool any = base == 8;
  for (; p < l->end; p++) {
    int d;
    char c = *p;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else break;
    if (d >= base) return fail(l);
    if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base) return fail(l);
    v = v * (unsigned)base + (unsigned)d;
    any = true;
  }
  if (!any) return fail(l);
  bool wide = false;
  while (p < l->end && (*p == 'l' || *p == 'L')) {
    wide = true;
    p++;
  }
  /* Unsigned literals, floating literals and digit separators are not modelled. */
  if (p < l->end && (kr_ident_char(*p) || *p == '.' || *p == '\'')) return fail(l);
  l->p = p;
  if (v > (unsigned long long)LLONG_MAX) return fail(l);
  Val r = {.v = (long long)v, .wide = wide || v > (unsigned long long)INT_MAX};
  return r;
}

/* `(int)`, `(long long)`…: a cast to a signed integer type; returns false when `(` opens
 * anything else (the caller then parses a parenthesised expression). */
static bool cast_type(Lex *l, bool *wide) {
  const char *save = l->p;
  if (!accept(l, "(")) return false;
  skip_space(l);
  const char *s = l->p;
  while (l->p < l->end && *l->p != ')' && (kr_ident_char(*l->p) || *l->p == ' ' || *l->p == ':'))
    l->p++;
  if (l->p >= l->end || *l->p != ')') {
    l->p = save;
    return false;
  }
  char *name = kr_text_fold(l->sc->a, s, (size_t)(l->p - s));
  KrType t = kr_type_of_name(name);
  if (t.cls != KR_TY_INT && t.cls != KR_TY_LONG) {
    l->p = save;
    return false;
  }
  l->p++;
  *wide = t.cls == KR_TY_LONG;
  return true;
}

static Val parse_unary(Lex *l) {
  if (!l->ok) return (Val){0};
  skip_space(l);
  if (l->p >= l->end) return fail(l);
  bool wide;
  if (accept(l, "-")) {
    Val a = parse_unary(l);
    if (a.v == LLONG_MIN) return fail(l);
    return check_range(l, (Val){-a.v, a.wide});
  }
  if (accept(l, "+")) return parse_unary(l);
  if (accept(l, "~")) {
    Val a = parse_unary(l);
    return (Val){~a.v, a.wide};
  }
  if (accept(l, "!")) {
    Val a = parse_unary(l);
    return (Val){!a.v, false};
  }
  if (cast_type(l, &wide)) {
    Val a = parse_unary(l);
    if (!wide && (a.v < INT_MIN || a.v > INT_MAX)) return fail(l);
    return (Val){a.v, wide};
  }
  if (accept(l, "(")) {
    Val a = parse_cond(l);
    if (!accept(l, ")")) return fail(l);
    return a;
  }
  if (*l->p >= '0' && *l->p <= '9') return number(l);
  if (kr_ident_char(*l->p)) {
    const char *s = l->p;
    while (l->p < l->end && kr_ident_char(*l->p)) l->p++;
    char *name = kr_arena_strndup(l->sc->a, s, (size_t)(l->p - s));
    if (strcmp(name, "true") == 0) return (Val){1, false};
    if (strcmp(name, "false") == 0) return (Val){0, false};
    skip_space(l);
    if (l->p < l->end && (*l->p == '(' || *l->p == '.' || *l->p == '[' || *l->p == ':' ||
                          (*l->p == '-' && l->p + 1 < l->end && l->p[1] == '>')))
      return fail(l); /* a call, member, subscript or qualified name */
    Val v;
    if (!const_of_name(l->sc, name, l->use_at, l->depth, &v)) return fail(l);
    return v;
  }
  return fail(l);
}

static int precedence(Lex *l, const char **op) {
  static const struct { const char *op; int prec; } ops[] = {
    {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6}, {"<=", 7},
    {">=", 7}, {"<<", 8}, {">>", 8}, {"<", 7}, {">", 7}, {"+", 9}, {"-", 9}, {"*", 10},
    {"/", 10}, {"%", 10},
  };
  const char *save = l->p;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    if (accept(l, ops[i].op)) {
      l->p = save;
      *op = ops[i].op;
      return ops[i].prec;
    }
  }
  return 0;
}

static Val binop(Lex *l, const char *op, Val a, Val b) {
  Val r = {.wide = a.wide || b.wide};
  long long x = a.v, y = b.v;
  switch (op[0]) {
  case '+': if (__builtin_add_overflow(x, y, &r.v)) return fail(l); break;
  case '-': if (__builtin_sub_overflow(x, y, &r.v)) return fail(l); break;
  case '*': if (__builtin_mul_overflow(x, y, &r.v)) return fail(l); break;
  case '/':
  case '%':
    if (y == 0 || (x == LLONG_MIN && y == -1)) return fail(l);
    r.v = op[0] == '/' ? x / y : x % y;
    break;
  case '<':
  case '>':
    if (op[1] == op[0]) {
      r.wide = a.wide;
      if (y < 0 || y >= (a.wide ? 63 : 31) || x < 0) return fail(l);
      if (op[0] == '<') {
        if (x > (a.wide ? LLONG_MAX : INT_MAX) >> y) return fail(l);
        r.v = x << y;
      } else {
        r.v = x >> y;
      }
    } else {
      r.wide = false;
      r.v = op[0] == '<' ? (op[1] == '=' ? x <= y : x < y) : (op[1] == '=' ? x >= y : x > y);
    }
    break;
  case '=': r = (Val){x == y, false}; break;
  case '!': r = (Val){x != y, false}; break;
  case '&': r = op[1] ? (Val){x && y, false} : (Val){x & y, r.wide}; break;
  case '|': r = op[1] ? (Val){x || y, false} : (Val){x | y, r.wide}; break;
  case '^': r.v = x ^ y; break;
  default: return fail(l);
  }
  return check_range(l, r);
}

static Val parse_binary(Lex *l, int min_prec) {
  Val a = parse_unary(l);
  for (;;) {
    if (!l->ok) return a;
    const char *op;
    int prec = precedence(l, &op);
    if (prec == 0 || prec < min_prec) return a;
    accept(l, op);
    Val b = parse_binary(l, prec + 1);
    if (!l->ok) return a;
    a = binop(l, op, a, b);
  }
}

static Val parse_cond(Lex *l) {
  Val c = parse_binary(l, 1);
  if (!l->ok || !accept(l, "?")) return c;
  Val a = parse_cond(l);
  if (!accept(l, ":")) return fail(l);
  Val b = parse_cond(l);
  return c.v ? a : b;
}

/* `depth` guards recursive constant definitions (#define A B, #define B A). */
static bool eval_text(KrScope *sc, const char *s, size_t n, uint32_t use_at, int depth, Val *out) {
  if (depth > 32) return false;
  Lex l = {.sc = sc, .depth = depth, .p = s, .end = s + n, .use_at = use_at, .ok = true};
  Val v = parse_cond(&l);
  skip_space(&l);
  if (!l.ok || l.p != l.end) return false;
  *out = v;
  return true;
}

/* The value of a name when the file shows it is a constant (loops.h explains which). */
static bool const_of_name(KrScope *sc, const char *name, uint32_t use_at, int depth, Val *out) {
  const KrMacro *m = NULL;
  if (kr_scope_macro(sc, name, &m)) {
    /* Redefined, conditional, function-like, #undef'd or defined after the use: not known. */
    if (!m || m->conditional || !m->body || kr_scope_undefined(sc, name) || m->at > use_at)
      return false;
    for (size_t i = 0; i < sc->decls.len; i++)
      if (strcmp(sc->decls.data[i].name, name) == 0) return false;
    return eval_text(sc, m->body, strlen(m->body), use_at, depth + 1, out);
  }
  const KrDecl *d = NULL;
  for (size_t i = 0; i < sc->decls.len; i++) {
    if (strcmp(sc->decls.data[i].name, name) != 0) continue;
    if (d) return false; /* declared twice: which one is meant depends on scope */
    d = &sc->decls.data[i];
  }
  if (!d || !d->is_const || d->is_param || d->is_template || d->is_ref || d->ty.depth ||
      ts_node_is_null(d->value) || (d->ty.cls != KR_TY_INT && d->ty.cls != KR_TY_LONG))
    return false;
  if (d->in_kernel && d->at > use_at) return false;
  uint32_t s = ts_node_start_byte(d->value), e = ts_node_end_byte(d->value);
  Val v;
  if (!eval_text(sc, sc->t->src->text + s, e - s, use_at, depth + 1, &v)) return false;
  if (d->ty.cls == KR_TY_INT && (v.v < INT_MIN || v.v > INT_MAX)) return false;
  out->v = v.v;
  out->wide = d->ty.cls == KR_TY_LONG;
  return true;
}

bool kr_const_eval(KrScope *sc, TSNode expr, long long *value) {
  if (ts_node_is_null(expr)) return false;
  uint32_t s = ts_node_start_byte(expr), e = ts_node_end_byte(expr);
  Val v;
  if (!eval_text(sc, sc->t->src->text + s, e - s, s, 0, &v)) return false;
  *value = v.v;
  return true;
}

bool kr_const_eval_text(KrScope *sc, const char *s, size_t n, uint32_t use_at, long long *value,
                        bool *wide) {
  Val v;
  if (!eval_text(sc, s, n, use_at, 0, &v)) return false;
  *value = v.v;
  if (wide) *wide = v.wide;
  return true;
}

bool kr_const_of_name(KrScope *sc, const char *name, uint32_t use_at, long long *value,
                      bool *wide) {
  Val v;
  if (!const_of_name(sc, name, use_at, 0, &v)) return false;
  *value = v.v;
  if (wide) *wide = v.wide;
  return true;
}
