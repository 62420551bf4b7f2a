/* passes/expand_macros.c: write out the calls of the file's function-like macros in a kernel.
 *
 * Before:  #define IDX(r, c, ld) ((r) * (ld) + (c))
 *          ...  s += A[IDX(row, k, K)] * B[IDX(k, col, N)];
 * After:   ...  s += A[((row) * (K) + (k))] * B[((k) * (N) + (col))];
 *
 * Kernels people write name their index arithmetic and accessors with macros (`IDX(r, c)`,
 * `A_(i, k)`); the nest (frontend/nest.h) and the row nest cannot see through a call of one, so
 * they refuse the kernel, and the schedule passes with them. This pass replaces each call in the
 * kernel's body by the text the preprocessor makes of it: the body with each parameter replaced
 * by its argument (the argument's own calls expanded first), then rescanned for more calls. No
 * parentheses are added (the expansion means what the compiler reads), and a space goes between
 * two pieces only where their characters would otherwise join into one token. Object-like macros
 * (sizes such as N) are left as they are: the nest reads those by name. The definitions stay (the
 * host code and other kernels may use them).
 *
 * Requires: the kernel calls a function-like macro of this file; each macro it expands is defined
 * once, before the kernel, outside every #if group the file leaves unsettled (parser's view, preproc.h:
 * a group the defines settle counts as its taken branch), is not #undef'd before the kernel ends, takes
 * a fixed number of arguments (not `...`), uses neither # nor ##, and does not call itself; each
 * call passes as many arguments as the macro takes. What the compiler alone can tell (a macro
 * from a header, or defined by -D) is not expanded: such a name is not a macro of this file.
 * Params: macros (names; default: every function-like macro the kernel calls). Precision: exact. */
#include <ctype.h>
#include <string.h>

#include "frontend/scope.h"
#include "passes/pass.h"

static const KrParamSpec params[] = {
  {.name = "macros", .type = KR_PARAM_NAMES, .def = "all",
   .doc = "function-like macros to expand (default: every one the kernel calls)"},
};

enum { MAX_ROUNDS = 16, MAX_TEXT = 1 << 20 };

typedef struct Macro {
  const char *name;
  KrVec(const char *) params;
  const char *body;     /* comments and line continuations removed, trimmed */
  uint32_t at;          /* the #define's first byte */
  const char *why;      /* why it cannot be expanded, or NULL */
  bool object_like;     /* `#define N 64`: left as it is, never expanded */
} Macro;

typedef struct Expander {
  KrPassCtx *cx;
  KrVec(Macro) macros;  /* the function-like macros defined before the kernel */
  const KrValue *chosen;
  const char *err;      /* the first failure */
  uint32_t err_at;
  uint32_t at;          /* the byte of the call being expanded, for messages */
} Expander;

/* ---- Lexing --------------------------------------------------------------------------------- */

static bool ident_start(char c) { return kr_ident_char(c) && !isdigit((unsigned char)c); }

/* The end of the token, comment or literal at s[i] (i < n); *kind: 'i' identifier, 'c' comment,
 * 's' a string or character literal, 'w' white space, 'o' anything else. */
static size_t token_end(const char *s, size_t n, size_t i, char *kind) {
  char c = s[i];
  if (c == '/' && i + 1 < n && s[i + 1] == '/') {
    *kind = 'c';
    while (i < n && s[i] != '\n') i++;
    return i;
  }
  if (c == '/' && i + 1 < n && s[i + 1] == '*') {
    *kind = 'c';
    for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++) {}
    return i + 1 < n ? i + 2 : n;
  }
  if (c == '"' || c == '\'') {
    *kind = 's';
    for (i++; i < n && s[i] != c && s[i] != '\n'; i++)
      if (s[i] == '\\' && i + 1 < n) i++;
    return i < n ? i + 1 : n;
  }
  if (isspace((unsigned char)c)) {
    *kind = 'w';
    while (i < n && isspace((unsigned char)s[i])) i++;
    return i;
  }
  if (ident_start(c)) {
    *kind = 'i';
    while (i < n && kr_ident_char(s[i])) i++;
    return i;
  }
  *kind = 'o';
  if (isdigit((unsigned char)c) || (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
    /* a preprocessing number: 1.5e-3f, 0x1p+4 */
    for (i++; i < n; i++) {
      if ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1])) continue;
      if (!kr_ident_char(s[i]) && s[i] != '.') break;
    }
    return i;
  }
  return i + 1;
}

/* Whether two characters side by side, the last of one piece and the first of the next, could join
 * into one token (`-` `-`, `x` `1`, `/` `*`, `1` `.5`). */
static bool joins(char a, char b) {
  static const char punct[] = "+-*/%<>=&|!^.:#";
  if (!a || !b) return false;
  if (kr_ident_char(a) && kr_ident_char(b)) return true;
  if ((isdigit((unsigned char)a) && b == '.') || (a == '.' && isdigit((unsigned char)b))) return true;
  return strchr(punct, a) && strchr(punct, b);
}

/* Appends piece to out; at a seam (a piece of an expansion beside other text), with a space first
 * where the two would join. Text copied as it was written needs none. */
static void put(KrBuf *out, const char *piece, size_t n, bool seam) {
  if (!n) return;
  if (seam && out->len && joins(out->data[out->len - 1], piece[0])) kr_buf_putc(out, ' ');
  kr_buf_append(out, piece, n);
}

/* ---- The file's macros ------------------------------------------------------------------------ */

static Macro *macro_named(Expander *x, const char *name, size_t n) {
  for (size_t i = 0; i < x->macros.len; i++)
    if (strlen(x->macros.data[i].name) == n && memcmp(x->macros.data[i].name, name, n) == 0) return &x->macros.data[i];
  return NULL;
}

/* A macro's replacement list as the preprocessor reads it: continuations joined, comments a space. */
static const char *clean_body(KrArena *a, const char *t) {
  KrBuf b = {0};
  size_t n = strlen(t);
  for (size_t i = 0; i < n;) {
    if (t[i] == '\\' && i + 1 < n && (t[i + 1] == '\n' || (t[i + 1] == '\r' && i + 2 < n && t[i + 2] == '\n'))) {
      i += t[i + 1] == '\n' ? 2 : 3;
      continue;
    }
    char kind;
    size_t e = token_end(t, n, i, &kind);
    if (kind == 'c') kr_buf_putc(&b, ' ');
    else kr_buf_append(&b, t + i, e - i);
    i = e;
  }
  size_t s = 0, e = b.len;
  while (s < e && isspace((unsigned char)b.data[s])) s++;
  while (e > s && isspace((unsigned char)b.data[e - 1])) e--;
  const char *r = kr_arena_strndup(a, b.data ? b.data + s : "", e - s);
  kr_buf_free(&b);
  return r;
}

static bool has_operator_hash(const char *body) {
  size_t n = strlen(body);
  for (size_t i = 0; i < n;) {
    char kind;
    size_t e = token_end(body, n, i, &kind);
    if (kind == 'o' && body[i] == '#') return true;
    i = e;
  }
  return false;
}

static void add_definition(Expander *x, TSNode n, bool conditional) {
  KrPassCtx *cx = x->cx;
  TSNode name = kr_node_field(n, "name");
  if (ts_node_is_null(name)) return;
  const char *nm = kr_pass_text(cx, name);
  uint32_t at = ts_node_start_byte(n);
  bool function_like = ts_node_symbol(n) == cx->tree->sym.preproc_function_def;
  Macro *m = macro_named(x, nm, strlen(nm));
  if (m) {   /* a second definition, of either kind */
    if (!m->why) m->why = kr_arena_printf(cx->arena, "is defined again at line %u", kr_source_line_of(cx->src, at) + 1);
    return;
  }
  if (at >= cx->kernel->span.start) return;   /* a name defined after the kernel is no macro in it */
  Macro mm = {.name = nm, .at = at};
  if (!function_like) mm.why = "is an object-like macro", mm.object_like = true;
  TSNode ps = kr_node_field(n, "parameters"), v = kr_node_field(n, "value");
  for (uint32_t i = 0; function_like && !ts_node_is_null(ps) && i < ts_node_child_count(ps); i++) {
    TSNode c = ts_node_child(ps, i);
    const char *ct = kr_pass_text(cx, c);
    if (strcmp(ct, "...") == 0 || strstr(ct, "...")) mm.why = "takes a variable number of arguments (...)";
    else if (ts_node_is_named(c)) kr_vec_push(cx->arena, &mm.params, ct);
  }
  mm.body = clean_body(cx->arena, ts_node_is_null(v) ? "" : kr_pass_text(cx, v));
  if (!mm.why && has_operator_hash(mm.body)) mm.why = "uses the # or ## operator";
  if (!mm.why && conditional) mm.why = "is defined inside an #if group the file does not settle (which definition holds depends on the build)";
  kr_vec_push(cx->arena, &x->macros, mm);
}

static void collect(Expander *x, TSNode n, bool conditional, int depth) {
  KrPassCtx *cx = x->cx;
  const KrSyms *s = &cx->tree->sym;
  TSSymbol y = ts_node_symbol(n);
  if (depth > 256) return;
  if (y == s->preproc_def || y == s->preproc_function_def) {
    add_definition(x, n, conditional);
    return;
  }
  if (y == s->preproc_call) {   /* #undef NAME before the kernel's end */
    TSNode dir = kr_node_field(n, "directive"), arg = kr_node_field(n, "argument");
    if (!ts_node_is_null(dir) && !ts_node_is_null(arg) && kr_node_text_is(cx->tree, dir, "#undef") &&
        ts_node_start_byte(n) < cx->kernel->span.end) {
      const char *t = kr_pass_text(cx, arg);
      size_t len = 0;
      while (kr_ident_char(t[len])) len++;
      Macro *m = macro_named(x, t, len);
      if (m && !m->why)
        m->why = kr_arena_printf(cx->arena, "is #undef'd at line %u, before the kernel ends",
                                 kr_source_line_of(cx->src, ts_node_start_byte(n)) + 1);
    }
    return;
  }
  if (y == s->preproc_if || y == s->preproc_ifdef || y == s->preproc_else || y == s->preproc_elif) conditional = true;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) collect(x, ts_node_child(n, i), conditional, depth + 1);
}

/* ---- Expanding ------------------------------------------------------------------------------ */

static bool fail(Expander *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Expander *x, const char *fmt, ...) {
  if (x->err) return false;
  va_list ap;
  va_start(ap, fmt);
  x->err = kr_arena_vprintf(x->cx->arena, fmt, ap);
  va_end(ap);
  x->err_at = x->at;
  return false;
}

/* After the identifier ending at s[i]: the '(' of a call, past white space and comments, or n. */
static size_t call_paren(const char *s, size_t n, size_t i) {
  while (i < n) {
    char kind;
    size_t e = token_end(s, n, i, &kind);
    if (kind == 'w' || kind == 'c') {
      i = e;
      continue;
    }
    return s[i] == '(' ? i : n;
  }
  return n;
}

typedef KrVec(const char *) Names;

static bool disabled(const Names *off, const char *name) {
  for (size_t i = 0; i < off->len; i++)
    if (strcmp(off->data[i], name) == 0) return true;
  return false;
}

/* Whether name is a macro this run expands. */
static Macro *expands(Expander *x, const char *name, size_t n) {
  Macro *m = macro_named(x, name, n);
  if (!m || m->object_like) return NULL;
  if (!kr_pass_names_has(x->chosen, m->name)) return NULL;
  return m;
}

static bool expand(Expander *x, const char *s, size_t n, Names *off, KrBuf *out, int depth);

/* The arguments of the call whose '(' is s[open]; the index past its ')' in *end. */
static bool arguments(Expander *x, const Macro *m, const char *s, size_t n, size_t open, Names *args, size_t *end) {
  KrArena *a = x->cx->arena;
  int level = 0;
  size_t from = open + 1;
  for (size_t i = open + 1; i < n;) {
    char kind;
    size_t e = token_end(s, n, i, &kind);
    if (kind == 'o' && s[i] == '(') level++;
    if (kind == 'o' && s[i] == ')' && level-- == 0) {
      kr_vec_push(a, args, kr_arena_strndup(a, s + from, i - from));
      *end = i + 1;
      size_t given = args->len == 1 && m->params.len == 0 && !args->data[0][strspn(args->data[0], " \t\r\n")] ? 0 : args->len;
      if (given != m->params.len)
        return fail(x, "this call of macro '%s' passes %zu argument%s; the macro takes %zu", m->name, given,
                    given == 1 ? "" : "s", m->params.len);
      return true;
    }
    if (kind == 'o' && s[i] == ',' && level == 0) {
      kr_vec_push(a, args, kr_arena_strndup(a, s + from, i - from));
      from = i + 1;
    }
    i = e;
  }
  return fail(x, "the call of macro '%s' has no closing parenthesis", m->name);
}

/* The index of m's parameter named by b[i, e), or m->params.len. */
static size_t param_at(const Macro *m, const char *b, size_t i, size_t e) {
  size_t p = 0;
  while (p < m->params.len && !(strlen(m->params.data[p]) == e - i && memcmp(m->params.data[p], b + i, e - i) == 0)) p++;
  return p;
}

/* Whether t[0, n) is one number, or one name of a variable of the kernel (a parameter or a local):
 * a value, never a type, so parentheses around it only group. */
static bool plain_value(Expander *x, const char *t, size_t n) {
  char kind;
  if (!n || token_end(t, n, 0, &kind) != n) return false;
  if (isdigit((unsigned char)t[0])) return true;
  if (kind != 'i') return false;
  const KrKernel *k = x->cx->kernel;
  for (size_t i = 0; i < k->params.len; i++)
    if (strlen(k->params.data[i].name) == n && memcmp(k->params.data[i].name, t, n) == 0) return true;
  const KrScope *sc = kr_pass_scope(x->cx);
  for (size_t i = 0; i < sc->decls.len; i++)
    if (sc->decls.data[i].in_kernel && strlen(sc->decls.data[i].name) == n && memcmp(sc->decls.data[i].name, t, n) == 0)
      return true;
  return false;
}

/* A parameter's argument, expanded and trimmed, into *ex at [*s0, *s1). */
static bool argument_text(Expander *x, const char *arg, Names *off, KrBuf *ex, size_t *s0, size_t *s1, int depth) {
  bool ok = expand(x, arg, strlen(arg), off, ex, depth + 1);
  *s0 = 0, *s1 = ex->len;
  while (*s0 < *s1 && isspace((unsigned char)ex->data[*s0])) (*s0)++;
  while (*s1 > *s0 && isspace((unsigned char)ex->data[*s1 - 1])) (*s1)--;
  return ok;
}

/* The replacement list of m with the (expanded) arguments in place of its parameters. A parameter
 * the body groups alone, `(p)`, whose argument is one value (`row`, `4`), goes in without the
 * parentheses: `((row) * (K) + (k))` reads `(row * K + k)`, and `(x) + n` is not read as a cast of
 * `+n` to a type x (the parser cannot tell; the compiler can). A `(` after a name or a closing
 * bracket is a call's or a cast's and stays. */
static bool substitute(Expander *x, const Macro *m, const Names *args, Names *off, KrBuf *out, int depth) {
  const char *b = m->body;
  size_t n = strlen(b);
  bool seam = true;   /* the body's first token meets what came before the call */
  for (size_t i = 0; i < n;) {
    char kind;
    size_t e = token_end(b, n, i, &kind);
    if (kind == 'o' && b[i] == '(') {
      size_t j = e, pe, k;
      while (j < n && isspace((unsigned char)b[j])) j++;
      char pk = 0;
      pe = j < n ? token_end(b, n, j, &pk) : n;
      size_t p = pk == 'i' ? param_at(m, b, j, pe) : m->params.len;
      for (k = pe; k < n && isspace((unsigned char)b[k]); k++) {}
      size_t last = out->len;
      while (last > 0 && isspace((unsigned char)out->data[last - 1])) last--;
      char before = last ? out->data[last - 1] : 0;
      if (p < m->params.len && k < n && b[k] == ')' && !kr_ident_char(before) && before != ')' && before != ']') {
        KrBuf ex = {0};
        size_t s0, s1;
        bool ok = argument_text(x, args->data[p], off, &ex, &s0, &s1, depth);
        bool bare = ok && plain_value(x, ex.data + s0, s1 - s0);
        if (bare) put(out, ex.data + s0, s1 - s0, true);
        kr_buf_free(&ex);
        if (!ok) return false;
        if (bare) {
          i = k + 1;
          seam = true;
          continue;
        }
      }
    }
    size_t p = kind == 'i' ? param_at(m, b, i, e) : m->params.len;
    if (p < m->params.len) {
      KrBuf ex = {0};
      size_t s0, s1;
      bool ok = argument_text(x, args->data[p], off, &ex, &s0, &s1, depth);
      if (ok) put(out, ex.data + s0, s1 - s0, true);
      kr_buf_free(&ex);
      if (!ok) return false;
      seam = true;
    } else {
      put(out, b + i, e - i, seam);
      seam = false;
    }
    i = e;
  }
  return true;
}

/* One call: the arguments, the substitution, then the result rescanned with m itself off. */
static bool expand_call(Expander *x, Macro *m, const char *s, size_t n, size_t open, Names *off, KrBuf *out,
                        size_t *end, int depth) {
  KrArena *a = x->cx->arena;
  if (m->why) return fail(x, "macro '%s' cannot be expanded: it %s", m->name, m->why);
  Names args = {0};
  if (!arguments(x, m, s, n, open, &args, end)) return false;
  KrBuf sub = {0};
  bool ok = substitute(x, m, &args, off, &sub, depth);
  if (ok) {
    kr_vec_push(a, off, m->name);
    KrBuf res = {0};
    ok = expand(x, sub.data ? sub.data : "", sub.len, off, &res, depth + 1);
    off->len--;
    if (ok) put(out, res.data ? res.data : "", res.len, true);
    kr_buf_free(&res);
  }
  kr_buf_free(&sub);
  return ok;
}

/* s[0, n) with every call of an expanded macro replaced, recursively; `off`: the macros being
 * expanded around this text (a call of one of them would be the macro calling itself). */
static bool expand(Expander *x, const char *s, size_t n, Names *off, KrBuf *out, int depth) {
  if (depth > 64 || out->len > MAX_TEXT) return fail(x, "the expansion nests too deep or grows too long");
  bool seam = true;
  for (size_t i = 0; i < n;) {
    char kind;
    size_t e = token_end(s, n, i, &kind);
    Macro *m = kind == 'i' ? expands(x, s + i, e - i) : NULL;
    size_t open = m ? call_paren(s, n, e) : n;
    if (m && open < n) {
      if (disabled(off, m->name))
        return fail(x, "macro '%s' calls itself (the compiler stops expanding it there; a copy of its text would not)",
                    m->name);
      size_t end;
      if (!expand_call(x, m, s, n, open, off, out, &end, depth)) return false;
      i = end;
      seam = true;
      continue;
    }
    put(out, s + i, e - i, seam);
    seam = false;
    i = e;
  }
  return true;
}

/* ---- The kernel's calls --------------------------------------------------------------------- */

/* Walks the kernel's body for calls of the chosen macros (outside comments, literals and
 * directive lines); with edits, each outermost call is replaced by its expansion. How many calls
 * there were, or -1 on a failure (x->err). */
static long walk(Expander *x, bool edits) {
  KrPassCtx *cx = x->cx;
  const char *t = cx->src->text;
  TSNode body = kr_node_field(cx->kernel->node, "body");
  if (ts_node_is_null(body)) return 0;
  size_t start = ts_node_start_byte(body), n = ts_node_end_byte(body);
  long calls = 0;
  bool line_start = false;
  for (size_t i = start; i < n;) {
    char kind;
    size_t e = token_end(t, n, i, &kind);
    if (kind == 'o' && t[i] == '#' && line_start) {   /* a directive line (#pragma unroll): left as is */
      while (e < n && t[e] != '\n') e += t[e] == '\\' && e + 1 < n ? 2 : 1;
    }
    if (kind == 'w') line_start = line_start || memchr(t + i, '\n', e - i);
    else line_start = false;
    Macro *m = kind == 'i' ? expands(x, t + i, e - i) : NULL;
    size_t open = m ? call_paren(t, n, e) : n;
    if (m && open < n) {
      x->at = (uint32_t)i;
      Names off = {0};
      KrBuf out = {0};
      size_t end;
      bool ok = expand_call(x, m, t, n, open, &off, &out, &end, 0);
      /* A call the expansion forms from its pieces (a macro whose text ends in another's name), once more */
      for (int round = 0; ok && round < MAX_ROUNDS; round++) {
        KrBuf again = {0};
        ok = expand(x, out.data ? out.data : "", out.len, &off, &again, 0);
        bool same = ok && again.len == out.len && (!out.len || memcmp(again.data, out.data, out.len) == 0);
        kr_buf_free(&out);
        out = again;
        if (same) break;
      }
      if (ok && edits) {
        KrBuf put_in = {0};
        if (i > 0 && out.len && joins(t[i - 1], out.data[0])) kr_buf_putc(&put_in, ' ');
        kr_buf_append(&put_in, out.data ? out.data : "", out.len);
        if (out.len && end < cx->src->len && joins(out.data[out.len - 1], t[end])) kr_buf_putc(&put_in, ' ');
        kr_pass_replace(cx, (uint32_t)i, (uint32_t)end, put_in.data ? put_in.data : "");
        kr_buf_free(&put_in);
      }
      kr_buf_free(&out);
      if (!ok) return -1;
      calls++;
      i = end;
      line_start = false;
      continue;
    }
    i = e;
  }
  return calls;
}

static const char *function_like_names(Expander *x) {
  KrBuf b = {0};
  for (size_t i = 0; i < x->macros.len; i++)
    if (!x->macros.data[i].object_like)
      kr_buf_printf(&b, "%s%s", b.len ? ", " : "", x->macros.data[i].name);
  const char *r = kr_arena_strdup(x->cx->arena, b.data ? b.data : "none");
  kr_buf_free(&b);
  return r;
}

static KrStatus run(KrPassCtx *cx, bool edits) {
  Expander x = {.cx = cx, .chosen = kr_pass_arg(cx, "macros")};
  collect(&x, kr_tree_root(cx->tree), false, 0);
  const KrKernel *k = cx->kernel;
  for (size_t i = 0; i < x.chosen->names.len; i++) {
    const char *nm = x.chosen->names.data[i];
    if (!expands(&x, nm, strlen(nm)))
      return kr_pass_skip(cx, k->span.start, "'%s' is not a function-like macro defined before kernel '%s' (those: %s)",
                          nm, k->name, function_like_names(&x));
  }
  long calls = walk(&x, edits);
  if (calls < 0) return kr_pass_skip(cx, x.err_at, "%s", x.err);
  if (calls == 0)
    return kr_pass_skip(cx, k->span.start, x.chosen->names.len ? "kernel '%s' does not call the macros named"
                                                                  : "kernel '%s' calls no function-like macro defined in this file",
                        k->name);
  return KR_OK;
}

static KrStatus check(KrPassCtx *cx) { return run(cx, false); }
static KrStatus apply(KrPassCtx *cx) { return run(cx, true); }

const KrPass kr_pass_expand_macros = {
  .name = "expand_macros",
  .summary = "write out the calls of the file's function-like macros in a kernel, so the nest can read them",
  .doc = "Replaces each call of a function-like macro of this file in the kernel's body by the text the "
         "preprocessor makes of it (arguments expanded and substituted, the result rescanned), without "
         "added parentheses; object-like macros and the definitions stay. The nest and the row nest read "
         "the expanded kernel, so the schedule passes can follow. Refuses macros defined twice, inside an "
         "#if group the file leaves unsettled, after the kernel, #undef'd before its end, variadic, using # or ##, or calling "
         "themselves.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .before_schedule = true,
  .search = {.prepares = true},
  .check = check,
  .apply = apply,
};
