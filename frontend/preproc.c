/* frontend/preproc.c: the conditionals of the preprocessor evaluated in the parser's view (preproc.h).
 * Three steps: the directive lines are found (outside comments, continuations joined); the groups
 * are matched (an unbalanced one is an error and stops here); then the directives are walked in
 * order with a table of macros, each group decided when its `#if` is reached. */
#include "frontend/preproc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef enum { D_IF, D_IFDEF, D_IFNDEF, D_ELIF, D_ELSE, D_ENDIF, D_DEFINE, D_UNDEF, D_INCLUDE_LOCAL, D_OTHER } DirKind;

typedef struct Dir {
  DirKind kind;
  uint32_t start, end;       /* the directive's bytes: '#' to the end of its last line (no '\n') */
  uint32_t arg, arg_end;     /* what follows the keyword */
  size_t next;               /* if/elif/else: the group's next directive (elif, else or endif) */
} Dir;

/* A macro as far as conditions need it: its body's text, or unknown (set in a branch whose fate is
 * unknown, or function-like). Undefined names are absent; `undefined` marks an #undef seen. */
typedef struct Macro {
  const char *name, *body;
  size_t nlen, blen;
  bool unknown, undefined;
} Macro;

typedef struct Pp {
  const char *t;
  uint32_t len;
  Macro *m;
  size_t nm, cap;
  bool local_include;        /* a `#include "…"` seen before: any unknown name may come from it */
  bool header_names;         /* names that look like the toolkit's are unknown (not in plain eval) */
} Pp;

static bool ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* ---- The macro table ------------------------------------------------------------------------------ */

static Macro *find(Pp *p, const char *name, size_t n) {
  for (size_t i = p->nm; i-- > 0;)
    if (p->m[i].nlen == n && memcmp(p->m[i].name, name, n) == 0) return &p->m[i];
  return NULL;
}

static void set(Pp *p, const char *name, size_t n, const char *body, size_t blen, bool unknown, bool undefined) {
  Macro *m = find(p, name, n);
  if (!m) {
    if (p->nm == p->cap) {
      size_t cap = p->cap ? p->cap * 2 : 32;
      Macro *g = realloc(p->m, cap * sizeof *g);
      if (!g) return;
      p->m = g, p->cap = cap;
    }
    m = &p->m[p->nm++];
  }
  *m = (Macro){.name = name, .nlen = n, .body = body, .blen = blen, .unknown = unknown, .undefined = undefined};
}

/* `NAME` or `NAME=VALUE` (as -D takes them; `NAME` alone is 1). */
static void set_given(Pp *p, const char *def) {
  const char *eq = strchr(def, '=');
  size_t n = eq ? (size_t)(eq - def) : strlen(def);
  if (eq) set(p, def, n, eq + 1, strlen(eq + 1), false, false);
  else set(p, def, n, "1", 1, false, false);
}

/* Names a header of the toolkit or the compiler may define: reserved ones (`__x`, `_X`) and the CUDA
 * libraries' prefixes. */
static bool header_name(const char *s, size_t n) {
  static const char *const pre[] = {"CUDA", "CUDART", "CUB_", "THRUST_", "NV_", "NVCC", "CUBLAS", "CUSPARSE", "CUFFT",
                                    "CURAND", "CUDNN"};
  if (n >= 2 && s[0] == '_' && (s[1] == '_' || isupper((unsigned char)s[1]))) return true;
  for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
    if (n >= strlen(pre[i]) && memcmp(s, pre[i], strlen(pre[i])) == 0) return true;
  return false;
}

/* ---- Conditions --------------------------------------------------------------------------------------
 * A recursive descent over C's #if grammar. Values are long long; `known` false makes the whole
 * condition unknown (an unknown name, a function-like macro, a syntax error). */

typedef struct Ev {
  Pp *p;
  const char *s, *e;
  bool known;
  int depth;                 /* macro bodies expanded, against recursion */
} Ev;

static long long ternary(Ev *v);

static void skip(Ev *v) {
  for (;;) {
    while (v->s < v->e && (*v->s == ' ' || *v->s == '\t' || *v->s == '\r' || *v->s == '\n' || *v->s == '\\')) v->s++;
    if (v->s + 1 < v->e && v->s[0] == '/' && v->s[1] == '*') {
      const char *c = v->s + 2;
      while (c + 1 < v->e && !(c[0] == '*' && c[1] == '/')) c++;
      v->s = c + 1 < v->e ? c + 2 : v->e;
    } else if (v->s + 1 < v->e && v->s[0] == '/' && v->s[1] == '/') {
      v->s = v->e;
    } else {
      return;
    }
  }
}

static bool eat(Ev *v, const char *op) {
  skip(v);
  size_t n = strlen(op);
  if ((size_t)(v->e - v->s) < n || memcmp(v->s, op, n) != 0) return false;
  /* `<` is not the start of `<<` or `<=`, `&` not of `&&`, and so on */
  if (n == 1 && v->s + 1 < v->e && strchr("<>&|=", op[0]) && (v->s[1] == op[0] || v->s[1] == '=')) return false;
  if (n == 1 && op[0] == '!' && v->s + 1 < v->e && v->s[1] == '=') return false;
  v->s += n;
  return true;
}

static long long value_of(Ev *v, const char *body, size_t blen) {
  if (v->depth > 16) {
    v->known = false;
    return 0;
  }
  Ev sub = {.p = v->p, .s = body, .e = body + blen, .known = true, .depth = v->depth + 1};
  skip(&sub);
  if (sub.s == sub.e) {   /* `#define X` with no body: empty in an expression, an error in C; say unknown */
    v->known = false;
    return 0;
  }
  long long x = ternary(&sub);
  skip(&sub);
  if (!sub.known || sub.s != sub.e) v->known = false;
  return x;
}

/* The value of a name: its macro's, 0 for one defined nowhere (as the preprocessor says), unknown
 * where a header may define it. */
static long long name_value(Ev *v, const char *s, size_t n) {
  if (n == 4 && memcmp(s, "true", 4) == 0) return 1;
  if (n == 5 && memcmp(s, "false", 5) == 0) return 0;
  Macro *m = find(v->p, s, n);
  if (m && m->unknown) v->known = false;
  if (m && !m->unknown && !m->undefined) return value_of(v, m->body, m->blen);
  if (!m && (v->p->local_include || (v->p->header_names && header_name(s, n)))) v->known = false;
  return 0;
}

static long long primary(Ev *v) {
  skip(v);
  if (v->s >= v->e) {
    v->known = false;
    return 0;
  }
  if (eat(v, "(")) {
    long long x = ternary(v);
    if (!eat(v, ")")) v->known = false;
    return x;
  }
  if (isdigit((unsigned char)*v->s)) {
    char *end;
    long long x = (long long)strtoull(v->s, &end, 0);
    while (end < v->e && (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')) end++;
    if (end > v->e || (end < v->e && ident_char(*end))) v->known = false;
    v->s = end;
    return x;
  }
  if (*v->s == '\'') {   /* a character constant: 'a', '\n' */
    const char *c = v->s + 1;
    long long x = 0;
    if (c < v->e && *c == '\\' && c + 1 < v->e) {
      static const char esc[] = "n\nt\tr\r0\0\\\\''";
      const char *q = strchr(esc, c[1]);
      x = q && (q - esc) % 2 == 0 ? q[1] : c[1];
      c += 2;
    } else if (c < v->e) {
      x = (unsigned char)*c++;
    }
    if (c >= v->e || *c != '\'') v->known = false;
    v->s = c < v->e ? c + 1 : v->e;
    return x;
  }
  if (ident_start(*v->s)) {
    const char *s = v->s;
    while (v->s < v->e && ident_char(*v->s)) v->s++;
    size_t n = (size_t)(v->s - s);
    if (n == 7 && memcmp(s, "defined", 7) == 0) {
      bool paren = eat(v, "(");
      skip(v);
      const char *id = v->s;
      while (v->s < v->e && ident_char(*v->s)) v->s++;
      size_t idn = (size_t)(v->s - id);
      if (idn == 0 || (paren && !eat(v, ")"))) {
        v->known = false;
        return 0;
      }
      Macro *m = find(v->p, id, idn);
      if (m && m->unknown) v->known = false;
      if (m) return !m->undefined;
      if (v->p->local_include || (v->p->header_names && header_name(id, idn))) v->known = false;
      return 0;
    }
    skip(v);
    if (v->s < v->e && *v->s == '(') {   /* a function-like macro's call: not evaluated */
      v->known = false;
      v->s = v->e;
      return 0;
    }
    return name_value(v, s, n);
  }
  v->known = false;
  v->s = v->e;
  return 0;
}

static long long unary(Ev *v) {
  if (eat(v, "!")) return !unary(v);
  if (eat(v, "-")) return -unary(v);
  if (eat(v, "+")) return unary(v);
  if (eat(v, "~")) return ~unary(v);
  return primary(v);
}

/* Binary operators by precedence, lowest first; each level's operators. */
static const char *const levels[][6] = {
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
};
enum { NLEVELS = sizeof levels / sizeof levels[0] };

static long long binary(Ev *v, int level) {
  if (level == NLEVELS) return unary(v);
  long long x = binary(v, level + 1);
  for (;;) {
    const char *op = NULL;
    for (int i = 0; i < 6 && levels[level][i]; i++)
      if (eat(v, levels[level][i])) {
        op = levels[level][i];
        break;
      }
    if (!op) return x;
    long long y = binary(v, level + 1);
    if (!strcmp(op, "||")) x = x || y;
    else if (!strcmp(op, "&&")) x = x && y;
    else if (!strcmp(op, "|")) x |= y;
    else if (!strcmp(op, "^")) x ^= y;
    else if (!strcmp(op, "&")) x &= y;
    else if (!strcmp(op, "==")) x = x == y;
    else if (!strcmp(op, "!=")) x = x != y;
    else if (!strcmp(op, "<=")) x = x <= y;
    else if (!strcmp(op, ">=")) x = x >= y;
    else if (!strcmp(op, "<")) x = x < y;
    else if (!strcmp(op, ">")) x = x > y;
    else if (!strcmp(op, "<<")) x = y >= 0 && y < 64 ? (long long)((unsigned long long)x << y) : 0;
    else if (!strcmp(op, ">>")) x = y >= 0 && y < 64 ? x >> y : 0;
    else if (!strcmp(op, "+")) x = (long long)((unsigned long long)x + (unsigned long long)y);
    else if (!strcmp(op, "-")) x = (long long)((unsigned long long)x - (unsigned long long)y);
    else if (!strcmp(op, "*")) x = (long long)((unsigned long long)x * (unsigned long long)y);
    else if (y == 0) v->known = false;   /* division by zero: an error in the preprocessor */
    else if (!strcmp(op, "/")) x = y == -1 ? -x : x / y;
    else x = y == -1 ? 0 : x % y;
  }
}

static long long ternary(Ev *v) {
  long long c = binary(v, 0);
  if (!eat(v, "?")) return c;
  long long a = ternary(v);
  if (!eat(v, ":")) v->known = false;
  long long b = ternary(v);
  return c ? a : b;
}

/* 1, 0, or -1 (unknown) for the condition text [s, e). */
static int eval(Pp *p, const char *s, const char *e) {
  Ev v = {.p = p, .s = s, .e = e, .known = true};
  long long x = ternary(&v);
  skip(&v);
  if (!v.known || v.s != v.e) return -1;
  return x != 0;
}

/* ---- Directives ------------------------------------------------------------------------------------ */

static bool word(const char *s, const char *e, const char *w) {
  size_t n = strlen(w);
  return (size_t)(e - s) >= n && memcmp(s, w, n) == 0 && (s + n == e || !ident_char(s[n]));
}

/* The directive lines of t, outside comments and string literals, continuations joined. */
static Dir *scan(const char *t, uint32_t len, size_t *count) {
  Dir *d = NULL;
  size_t n = 0, cap = 0;
  bool in_comment = false;
  uint32_t i = 0;
  while (i < len) {
    uint32_t ls = i;
    /* the line's first code byte, past a comment that ends on it */
    uint32_t k = ls;
    if (in_comment) {
      while (k < len && t[k] != '\n' && !(t[k] == '*' && k + 1 < len && t[k + 1] == '/')) k++;
      if (k < len && t[k] == '*') in_comment = false, k += 2;
    }
    while (k < len && (t[k] == ' ' || t[k] == '\t' || t[k] == '\r')) k++;
    bool directive = !in_comment && k < len && t[k] == '#';
    /* the line's end, with continuations for a directive; block comments tracked */
    uint32_t j = in_comment ? k : ls;
    if (!directive && !in_comment) j = k;
    uint32_t end = j;
    for (;;) {
      while (end < len && t[end] != '\n') {
        if (in_comment) {
          if (t[end] == '*' && end + 1 < len && t[end + 1] == '/') in_comment = false, end++;
        } else if (t[end] == '/' && end + 1 < len && t[end + 1] == '*') {
          in_comment = true, end++;
        } else if (t[end] == '/' && end + 1 < len && t[end + 1] == '/') {
          while (end < len && t[end] != '\n') end++;
          break;
        } else if (t[end] == '"' || t[end] == '\'') {
          char q = t[end++];
          while (end < len && t[end] != q && t[end] != '\n') end += t[end] == '\\' && end + 1 < len ? 2 : 1;
        }
        if (end < len && t[end] != '\n') end++;
      }
      /* a directive continues past a line ending in a backslash */
      uint32_t b = end;
      while (b > ls && (t[b - 1] == '\r')) b--;
      if (directive && b > ls && t[b - 1] == '\\' && end < len) {
        end++;
        continue;
      }
      break;
    }
    if (directive) {
      uint32_t kw = k + 1;
      while (kw < end && (t[kw] == ' ' || t[kw] == '\t')) kw++;
      uint32_t kwe = kw;
      while (kwe < end && ident_char(t[kwe])) kwe++;
      static const struct { const char *w; DirKind k; } kinds[] = {
          {"if", D_IF}, {"ifdef", D_IFDEF}, {"ifndef", D_IFNDEF}, {"elif", D_ELIF}, {"else", D_ELSE},
          {"endif", D_ENDIF}, {"define", D_DEFINE}, {"undef", D_UNDEF}, {"include", D_OTHER}};
      DirKind kind = D_OTHER;
      for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++)
        if (kwe - kw == strlen(kinds[q].w) && memcmp(t + kw, kinds[q].w, kwe - kw) == 0) kind = kinds[q].k;
      if (kind == D_OTHER && word(t + kw, t + end, "include")) {
        uint32_t a = kwe;
        while (a < end && (t[a] == ' ' || t[a] == '\t')) a++;
        if (a < end && t[a] == '"') kind = D_INCLUDE_LOCAL;
      }
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        Dir *g = realloc(d, cap * sizeof *g);
        if (!g) {
          free(d);
          *count = 0;
          return NULL;
        }
        d = g;
      }
      d[n++] = (Dir){.kind = kind, .start = k, .end = end, .arg = kwe, .arg_end = end, .next = 0};
    }
    i = end < len ? end + 1 : len;
  }
  *count = n;
  return d;
}

static void blank(char *t, uint32_t s, uint32_t e) {
  for (uint32_t i = s; i < e; i++)
    if (t[i] != '\n') t[i] = ' ';
}

static const char *kind_name(DirKind k) {
  return k == D_ELIF ? "#elif" : k == D_ELSE ? "#else" : k == D_ENDIF ? "#endif" : "#if";
}

/* Links each if/elif/else to the group's next directive; reports what does not balance. */
static size_t match(Dir *d, size_t n, const KrSource *src, KrDiags *diags) {
  size_t errors = 0, *open = malloc((n + 1) * sizeof *open), depth = 0;
  if (!open) return 1;
  for (size_t i = 0; i < n; i++) {
    DirKind k = d[i].kind;
    if (k == D_IF || k == D_IFDEF || k == D_IFNDEF) {
      open[depth++] = i;
    } else if (k == D_ELIF || k == D_ELSE || k == D_ENDIF) {
      if (depth == 0) {
        kr_diag_at(diags, KR_DIAG_ERROR, src, d[i].start, "'%s' without a matching '#if'", kind_name(k));
        errors++;
        continue;
      }
      size_t prev = open[depth - 1];
      if (d[prev].kind == D_ELSE && k != D_ENDIF) {
        kr_diag_at(diags, KR_DIAG_ERROR, src, d[i].start, "'%s' after '#else' (line %u)", kind_name(k),
                   kr_source_line_of(src, d[prev].start) + 1);
        errors++;
        continue;
      }
      d[prev].next = i;
      if (k == D_ENDIF) depth--;
      else open[depth - 1] = i;
    }
  }
  while (depth > 0) {
    size_t i = open[--depth];
    while (i > 0 && d[i].kind != D_IF && d[i].kind != D_IFDEF && d[i].kind != D_IFNDEF) {
      /* back to the group's #if: the directive whose chain reaches i */
      size_t j = i;
      while (j-- > 0)
        if (d[j].next == i) break;
      i = j;
    }
    kr_diag_at(diags, KR_DIAG_ERROR, src, d[i].start, "'#%.*s' has no matching '#endif'",
               (int)(d[i].kind == D_IF ? 2 : d[i].kind == D_IFDEF ? 5 : 6), d[i].kind == D_IF ? "if" : d[i].kind == D_IFDEF ? "ifdef" : "ifndef");
    errors++;
  }
  free(open);
  return errors;
}

/* The braces opened minus those closed in t[s, e), outside comments, literals and directive lines. */
static long brace_balance(const char *t, uint32_t s, uint32_t e) {
  long net = 0;
  bool line_start = true;
  for (uint32_t i = s; i < e; i++) {
    char c = t[i];
    if (c == '\n') {
      line_start = true;
      continue;
    }
    if (line_start && c == '#') {   /* a directive: to its end, continuations included */
      while (i < e && !(t[i] == '\n' && t[i - 1] != '\\')) i++;
      continue;
    }
    if (c != ' ' && c != '\t') line_start = false;
    if (c == '/' && i + 1 < e && t[i + 1] == '/') {
      while (i + 1 < e && t[i + 1] != '\n') i++;
    } else if (c == '/' && i + 1 < e && t[i + 1] == '*') {
      i += 2;
      while (i + 1 < e && !(t[i] == '*' && t[i + 1] == '/')) i++;
      i++;
    } else if (c == '"' || c == '\'') {
      i++;
      while (i < e && t[i] != c && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
    } else if (c == '{') {
      net++;
    } else if (c == '}') {
      net--;
    }
  }
  return net;
}

/* One branch's condition: 1, 0 or -1. */
static int condition(Pp *p, const Dir *x) {
  const char *s = p->t + x->arg, *e = p->t + x->arg_end;
  if (x->kind == D_ELSE) return 1;
  if (x->kind == D_IF || x->kind == D_ELIF) return eval(p, s, e);
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  const char *id = s;
  while (s < e && ident_char(*s)) s++;
  if (s == id) return -1;
  Macro *m = find(p, id, (size_t)(s - id));
  int def;
  if (m && m->unknown) def = -1;
  else if (m) def = !m->undefined;
  else def = p->local_include || header_name(id, (size_t)(s - id)) ? -1 : 0;
  if (def < 0) return -1;
  return x->kind == D_IFDEF ? def : !def;
}

/* A #define or #undef in a branch taken (or, unknown, in one that may be). */
static void define(Pp *p, const Dir *x, bool unknown) {
  const char *s = p->t + x->arg, *e = p->t + x->arg_end;
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  const char *id = s;
  while (s < e && ident_char(*s)) s++;
  if (s == id) return;
  size_t n = (size_t)(s - id);
  if (x->kind == D_UNDEF) {
    set(p, id, n, NULL, 0, unknown, true);
    return;
  }
  bool fn = s < e && *s == '(';   /* function-like: no value for a condition */
  set(p, id, n, s, (size_t)(e - s), unknown || fn, false);
}

size_t kr_preproc_view(char *t, uint32_t len, const KrSource *src, KrDiags *diags) {
  size_t n;
  Dir *d = scan(src->text, len, &n);
  if (!d) return 0;
  size_t errors = match(d, n, src, diags);
  if (errors) {
    free(d);
    return errors;
  }
  Pp p = {.t = src->text, .len = len, .header_names = true};
  set(&p, "__CUDACC__", 10, "1", 1, false, false);
  set(&p, "__NVCC__", 8, "1", 1, false, false);
  set(&p, "__cplusplus", 11, "201703L", 7, false, false);
  for (size_t i = 0; i < src->ndefines; i++) set_given(&p, src->defines[i]);
  /* Each group is decided when its #if is reached, with the macros of that point (the branches before
   * the one taken define nothing, so their conditions read the same table the preprocessor would).
   * Per open group: the state of the code around it, whether it was decided, and the branch taken. */
  typedef struct { bool reading, unknown, decided; size_t taken; } Frame;
  Frame *stack = malloc((n + 1) * sizeof *stack);
  size_t depth = 0;
  bool reading = true, unknown = false;   /* of the code at this point: read by the parser; its fate unknown */
  for (size_t i = 0; stack && i < n; i++) {
    const Dir *x = &d[i];
    switch (x->kind) {
      case D_IF:
      case D_IFDEF:
      case D_IFNDEF: {
        Frame *f = &stack[depth++];
        *f = (Frame){.reading = reading, .unknown = unknown, .decided = false, .taken = SIZE_MAX};
        if (!reading) break;   /* inside a branch not taken: blanked with it */
        bool group_unknown = false;
        for (size_t j = i; d[j].kind != D_ENDIF; j = d[j].next) {
          int c = condition(&p, &d[j]);
          if (c < 0) group_unknown = true;
          if (c != 0) {
            if (c == 1) f->taken = j;
            break;
          }
        }
        if (group_unknown) {
          /* Every branch read, the directives left as they are; unless a branch's braces do not
           * balance (split across the branches): then the parser could not read them together, and
           * the first branch is read, as if its condition held. */
          bool split = false;
          for (size_t k = i; d[k].kind != D_ENDIF && !split; k = d[k].next)
            split = brace_balance(p.t, d[k].end, d[d[k].next].start) != 0;
          if (!split) {
            unknown = true;
            break;
          }
          f->taken = i;
          unknown = true;   /* its defines are not certain */
        }
        f->decided = true;
        for (size_t k = i;; k = d[k].next) {
          blank(t, d[k].start, d[k].end);
          if (d[k].kind == D_ENDIF) break;
          if (k != f->taken) blank(t, d[k].end, d[d[k].next].start);
        }
        reading = f->taken == i;
        break;
      }
      case D_ELIF:
      case D_ELSE:
        if (depth && stack[depth - 1].decided) reading = stack[depth - 1].taken == i;
        break;
      case D_ENDIF:
        if (depth) {
          depth--;
          reading = stack[depth].reading;
          unknown = stack[depth].unknown;
        }
        break;
      case D_DEFINE:
      case D_UNDEF:
        if (reading) define(&p, x, unknown);
        break;
      case D_INCLUDE_LOCAL:
        if (reading) p.local_include = true;
        break;
      default:
        break;
    }
  }
  free(stack);
  free(p.m);
  free(d);
  return 0;
}

int kr_preproc_eval(const char *cond, const char *const *defines, size_t ndefines) {
  Pp p = {0};
  for (size_t i = 0; i < ndefines; i++) set_given(&p, defines[i]);
  int r = eval(&p, cond, cond + strlen(cond));
  free(p.m);
  return r;
}
