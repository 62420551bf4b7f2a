/* frontend/types.c: scalar types of type names and of kernel expressions (types.h). Names get
 * their types from the declaration table (scope.h); expressions follow C++'s promotions and
 * usual arithmetic conversions, and anything not modelled (overloaded half arithmetic, mixed
 * overloads of math functions) is unknown rather than guessed. */
#include "frontend/types.h"

#include "frontend/consteval.h"
#include "frontend/scope.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 400   /* tree depth beyond which walks stop (pathological input only) */

static TSSymbol sym(TSNode n) { return ts_node_symbol(n); }
static char *text(KrScope *sc, TSNode n) { return kr_node_text(sc->t, n, sc->a); }
static bool is(KrScope *sc, TSNode n, const char *s) { return kr_node_text_is(sc->t, n, s); }

static char *flat(KrScope *sc, TSNode n) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return kr_text_fold(sc->a, sc->t->src->text + s, e - s);
}

/* ==== Types of type names ====================================================================== */

typedef struct TyName {
  const char *name;
  KrTyClass cls;
} TyName;

static const TyName scalar_names[] = {
  {"int", KR_TY_INT}, {"signed", KR_TY_INT}, {"signed int", KR_TY_INT}, {"int signed", KR_TY_INT},
  {"short", KR_TY_INT}, {"short int", KR_TY_INT}, {"signed short", KR_TY_INT},
  {"unsigned short", KR_TY_INT}, {"unsigned short int", KR_TY_INT}, {"char", KR_TY_INT},
  {"signed char", KR_TY_INT}, {"unsigned char", KR_TY_INT}, {"bool", KR_TY_INT},
  {"int8_t", KR_TY_INT}, {"int16_t", KR_TY_INT}, {"int32_t", KR_TY_INT}, {"uint8_t", KR_TY_INT},
  {"uint16_t", KR_TY_INT}, {"unsigned", KR_TY_UINT}, {"unsigned int", KR_TY_UINT},
  {"uint32_t", KR_TY_UINT}, {"uint", KR_TY_UINT}, {"long", KR_TY_LONG}, {"long int", KR_TY_LONG},
  {"signed long", KR_TY_LONG}, {"long long", KR_TY_LONG}, {"long long int", KR_TY_LONG},
  {"signed long long", KR_TY_LONG}, {"int64_t", KR_TY_LONG}, {"ptrdiff_t", KR_TY_LONG},
  {"intptr_t", KR_TY_LONG}, {"ssize_t", KR_TY_LONG}, {"unsigned long", KR_TY_ULONG},
  {"unsigned long int", KR_TY_ULONG}, {"unsigned long long", KR_TY_ULONG},
  {"unsigned long long int", KR_TY_ULONG}, {"uint64_t", KR_TY_ULONG}, {"size_t", KR_TY_ULONG},
  {"std::size_t", KR_TY_ULONG}, {"uintptr_t", KR_TY_ULONG}, {"float", KR_TY_FLOAT},
  {"double", KR_TY_DOUBLE}, {"long double", KR_TY_OTHER}, {"half", KR_TY_OTHER},
  {"__half", KR_TY_OTHER}, {"half2", KR_TY_OTHER}, {"__half2", KR_TY_OTHER},
  {"nv_bfloat16", KR_TY_OTHER}, {"__nv_bfloat16", KR_TY_OTHER}, {"nv_bfloat162", KR_TY_OTHER},
  {"__nv_bfloat162", KR_TY_OTHER}, {"void", KR_TY_OTHER},
};

/* CUDA vector types: the prefix before the component count, and the component's class. */
static const TyName vector_names[] = {
  {"float", KR_TY_FLOAT}, {"double", KR_TY_DOUBLE}, {"int", KR_TY_INT}, {"uint", KR_TY_UINT},
  {"char", KR_TY_INT}, {"uchar", KR_TY_INT}, {"short", KR_TY_INT}, {"ushort", KR_TY_INT},
  {"long", KR_TY_LONG}, {"ulong", KR_TY_ULONG}, {"longlong", KR_TY_LONG},
  {"ulonglong", KR_TY_ULONG},
};

/* The class of a type name as written (qualifiers allowed), e.g. "const unsigned int". */
KrType kr_type_of_name(const char *written) {
  KrType t = {.cls = KR_TY_UNKNOWN};
  char buf[96];
  size_t n = 0;
  /* Drop qualifiers and storage classes word by word. */
  for (const char *p = written; *p && n + 1 < sizeof buf;) {
    while (*p == ' ') p++;
    const char *e = p;
    while (*e && *e != ' ') e++;
    size_t w = (size_t)(e - p);
    static const char *const drop[] = {"const", "volatile", "constexpr", "static", "__shared__",
                                       "__restrict__", "__restrict", "register", "__device__",
                                       "__constant__", "extern", "inline", "__forceinline__"};
    bool skip = false;
    for (size_t i = 0; i < sizeof drop / sizeof *drop; i++)
      if (strlen(drop[i]) == w && strncmp(p, drop[i], w) == 0) skip = true;
    if (!skip && w) {
      if (n && n + 1 < sizeof buf) buf[n++] = ' ';
      for (size_t i = 0; i < w && n + 1 < sizeof buf; i++) buf[n++] = p[i];
    }
    p = e;
  }
  buf[n] = 0;
  for (size_t i = 0; i < sizeof scalar_names / sizeof *scalar_names; i++)
    if (strcmp(buf, scalar_names[i].name) == 0) {
      t.cls = scalar_names[i].cls;
      return t;
    }
  if (strcmp(buf, "dim3") == 0) return (KrType){.cls = KR_TY_UINT, .vector = true};
  for (size_t i = 0; i < sizeof vector_names / sizeof *vector_names; i++) {
    size_t m = strlen(vector_names[i].name);
    if (strncmp(buf, vector_names[i].name, m) == 0 && buf[m] >= '1' && buf[m] <= '4' && !buf[m + 1])
      return (KrType){.cls = vector_names[i].cls, .vector = true};
  }
  return t;
}

bool kr_ty_is_integer(KrTyClass c) {
  return c == KR_TY_INT || c == KR_TY_UINT || c == KR_TY_LONG || c == KR_TY_ULONG;
}

const char *kr_ty_spelling(KrTyClass c) {
  switch (c) {
  case KR_TY_INT: return "int";
  case KR_TY_UINT: return "unsigned int";
  case KR_TY_LONG: return "long long";
  case KR_TY_ULONG: return "size_t";
  case KR_TY_FLOAT: return "float";
  case KR_TY_DOUBLE: return "double";
  default: return NULL;
  }
}


/* Functions that return float whatever their arguments (the float forms of C math and the
 * single-precision intrinsics). */
static const char *const returns_float[] = {
  "fabsf", "fminf", "fmaxf", "sqrtf", "rsqrtf", "cbrtf", "rcbrtf", "expf", "exp2f", "exp10f",
  "expm1f", "logf", "log2f", "log10f", "log1pf", "sinf", "cosf", "tanf", "asinf", "acosf",
  "atanf", "atan2f", "sinhf", "coshf", "tanhf", "powf", "floorf", "ceilf", "roundf", "rintf",
  "truncf", "fmaf", "fmodf", "remainderf", "erff", "erfcf", "erfinvf", "lgammaf", "tgammaf",
  "hypotf", "rhypotf", "copysignf", "ldexpf", "normcdff", "sinpif", "cospif", "fdimf",
  "nextafterf", "__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf", "__cosf",
  "__tanf", "__powf", "__fdividef", "__saturatef", "__frcp_rn", "__fsqrt_rn", "__frsqrt_rn",
  "__fadd_rn", "__fsub_rn", "__fmul_rn", "__fdiv_rn", "__fmaf_rn", "__int_as_float",
  "__uint_as_float", "__half2float", "__low2float", "__high2float", "__bfloat162float",
  "__int2float_rn", "__uint2float_rn", "__double2float_rn",
};

bool kr_type_returns_float(const char *name) {
  for (size_t i = 0; i < sizeof returns_float / sizeof *returns_float; i++)
    if (strcmp(returns_float[i], name) == 0) return true;
  return false;
}

/* ==== Scalar types of expressions ============================================================== */

static KrType unknown_type(void) { return (KrType){.cls = KR_TY_UNKNOWN}; }
static KrType scalar_type(KrTyClass c) { return (KrType){.cls = c}; }

static bool is_builtin_index(const char *name) {
  return strcmp(name, "threadIdx") == 0 || strcmp(name, "blockIdx") == 0 ||
         strcmp(name, "blockDim") == 0 || strcmp(name, "gridDim") == 0;
}

/* The type of a literal as C++ gives it (integer literals take the first type that fits). */
static KrType literal_type(const char *s) {
  size_t n = strlen(s);
  bool hex = n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  bool floating = hex ? strpbrk(s, "pP") != NULL : strpbrk(s, ".eE") != NULL;
  const char *suffix = s + n;
  while (suffix > s && strchr("uUlLfF", suffix[-1]) &&
         !(hex && !floating && strchr("fF", suffix[-1])))
    suffix--;
  if (floating) {
    if (strpbrk(suffix, "fF")) return scalar_type(KR_TY_FLOAT);
    if (strpbrk(suffix, "lL")) return scalar_type(KR_TY_OTHER);
    return scalar_type(KR_TY_DOUBLE);
  }
  bool u = strpbrk(suffix, "uU") != NULL, l = strpbrk(suffix, "lL") != NULL;
  unsigned long long v = strtoull(s, NULL, 0);
  bool decimal = !hex && !(s[0] == '0' && n > 1);
  if (l) return scalar_type(u ? KR_TY_ULONG : KR_TY_LONG);
  if (u) return scalar_type(v <= UINT_MAX ? KR_TY_UINT : KR_TY_ULONG);
  if (v <= INT_MAX) return scalar_type(KR_TY_INT);
  if (!decimal && v <= UINT_MAX) return scalar_type(KR_TY_UINT);
  if (v <= LLONG_MAX) return scalar_type(KR_TY_LONG);
  return scalar_type(decimal ? KR_TY_UNKNOWN : KR_TY_ULONG);
}

static bool types_equal(KrType a, KrType b) {
  return a.cls == b.cls && a.depth == b.depth && a.vector == b.vector;
}

KrType kr_type_of_ident(KrScope *sc, const char *name) {
  if (is_builtin_index(name)) return (KrType){.cls = KR_TY_UINT, .vector = true};
  if (strcmp(name, "warpSize") == 0) return scalar_type(KR_TY_INT);
  const KrMacro *m = NULL;
  if (kr_scope_macro(sc, name, &m)) {
    if (!m || !m->body || m->conditional || kr_scope_undefined(sc, name)) return unknown_type();
    long long v;
    bool wide;
    if (kr_const_eval_text(sc, m->body, strlen(m->body), m->at + 1, &v, &wide))
      return scalar_type(wide ? KR_TY_LONG : KR_TY_INT);
    const char *b = m->body;
    while (*b == ' ' || *b == '(' || *b == '-' || *b == '+') b++;
    size_t len = strcspn(b, " )\n\r\t");
    if (len && ((*b >= '0' && *b <= '9') || *b == '.') && b[strspn(b + len, " )\n\r\t") + len] == 0)
      return literal_type(kr_arena_strndup(sc->a, b, len));
    return unknown_type();
  }
  KrType t = unknown_type();
  bool seen = false;
  for (size_t i = 0; i < sc->decls.len; i++) {
    const KrDecl *d = &sc->decls.data[i];
    if (strcmp(d->name, name) != 0) continue;
    if (seen && !types_equal(t, d->ty)) return unknown_type();
    t = d->ty;
    seen = true;
  }
  return t;
}

static KrType promote(KrType t) { return t.depth || t.vector ? unknown_type() : t; }

static int width_of(KrTyClass c) { return c == KR_TY_LONG || c == KR_TY_ULONG ? 64 : 32; }
static bool unsigned_class(KrTyClass c) { return c == KR_TY_UINT || c == KR_TY_ULONG; }

/* The usual arithmetic conversions for two scalar operands. */
static KrTyClass arith_class(KrTyClass a, KrTyClass b) {
  if (a == KR_TY_UNKNOWN || b == KR_TY_UNKNOWN || a == KR_TY_OTHER || b == KR_TY_OTHER)
    return KR_TY_UNKNOWN; /* half and friends: overloaded operators, not modelled */
  if (a == KR_TY_DOUBLE || b == KR_TY_DOUBLE) return KR_TY_DOUBLE;
  if (a == KR_TY_FLOAT || b == KR_TY_FLOAT) return KR_TY_FLOAT;
  if (width_of(a) != width_of(b)) return width_of(a) > width_of(b) ? a : b;
  if (unsigned_class(a)) return a;
  return b;
}

static KrType expr_type(KrScope *sc, TSNode n, int depth);

static KrType arith(KrScope *sc, TSNode n, const char *op, int depth) {
  KrType a = expr_type(sc, kr_node_field(n, "left"), depth + 1);
  KrType b = expr_type(sc, kr_node_field(n, "right"), depth + 1);
  bool additive = strcmp(op, "+") == 0 || strcmp(op, "-") == 0;
  if (a.depth && !b.depth && !b.vector && kr_ty_is_integer(b.cls) && additive) return a;
  if (b.depth && !a.depth && !a.vector && kr_ty_is_integer(a.cls) && strcmp(op, "+") == 0)
    return b;
  if (a.depth && b.depth && strcmp(op, "-") == 0) return scalar_type(KR_TY_LONG);
  a = promote(a);
  b = promote(b);
  return scalar_type(arith_class(a.cls, b.cls));
}

/* Strips `*` from a type descriptor ("float *"), counting them as pointer levels. */
static KrType descriptor_type(KrScope *sc, TSNode d) {
  char *s = flat(sc, d);
  int stars = 0;
  for (char *p = s; *p; p++)
    if (*p == '*') {
      *p = ' ';
      stars++;
    } else if (*p == '&' || *p == '[' || *p == '(') {
      return unknown_type();
    }
  KrType t = kr_type_of_name(kr_text_fold(sc->a, s, strlen(s)));
  if (t.cls != KR_TY_UNKNOWN) t.depth = stars;
  return t;
}

/* min/max/abs and the C math names (exp, sqrt, …) are overloaded: the type follows the
 * arguments. exp(float) is float and exp(double) double; integer or mixed arguments pick
 * overloads that differ between CUDA's headers and the C++ library, so they are not guessed. */
static KrType overload_type(KrScope *sc, const char *name, TSNode args, int depth) {
  if (ts_node_is_null(args)) return unknown_type();
  bool int_like = strcmp(name, "min") == 0 || strcmp(name, "max") == 0 || strcmp(name, "abs") == 0;
  char *fname = kr_arena_printf(sc->a, "%sf", name);
  bool math = kr_type_returns_float(fname);
  if (!int_like && !math) return unknown_type();
  KrTyClass c = KR_TY_UNKNOWN;
  size_t n = 0, floats = 0, doubles = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (sym(a) == sc->t->sym.comment) continue;
    KrTyClass at = promote(expr_type(sc, a, depth + 1)).cls;
    if (at == KR_TY_UNKNOWN || at == KR_TY_OTHER) return unknown_type();
    c = n++ ? arith_class(c, at) : at;
    floats += at == KR_TY_FLOAT;
    doubles += at == KR_TY_DOUBLE;
  }
  if (int_like || n == 0) return scalar_type(c);
  if (floats == n) return scalar_type(KR_TY_FLOAT);
  if (doubles && floats + doubles == n) return scalar_type(KR_TY_DOUBLE);
  return unknown_type();
}

static KrType call_type(KrScope *sc, TSNode call, int depth) {
  TSNode f = kr_node_field(call, "function");
  if (ts_node_is_null(f)) return unknown_type();
  if (sym(f) == sc->t->sym.primitive_type || sym(f) == sc->t->sym.sized_type_specifier)
    return kr_type_of_name(flat(sc, f)); /* float(x) */
  if (sym(f) == sc->t->sym.template_function) {
    TSNode name = kr_node_field(f, "name"), args = kr_node_field(f, "arguments");
    if (!ts_node_is_null(name) && is(sc, name, "static_cast") && !ts_node_is_null(args) &&
        ts_node_named_child_count(args) == 1)
      return descriptor_type(sc, ts_node_named_child(args, 0));
    return unknown_type();
  }
  const char *name = kr_node_callee(sc->t, call, sc->a);
  if (!name) return unknown_type();
  KrType t = unknown_type();
  bool seen = false;
  for (size_t i = 0; i < sc->funcs.len; i++) {
    if (strcmp(sc->funcs.data[i].name, name) != 0) continue;
    if (seen && !types_equal(t, sc->funcs.data[i].ret)) return unknown_type();
    t = sc->funcs.data[i].ret;
    seen = true;
  }
  if (seen) return t;
  if (kr_type_returns_float(name))
    return scalar_type(KR_TY_FLOAT);
  if (strncmp(name, "make_", 5) == 0) return kr_type_of_name(name + 5);
  if (strcmp(name, "isnan") == 0 || strcmp(name, "isinf") == 0 || strcmp(name, "isfinite") == 0 ||
      strcmp(name, "signbit") == 0)
    return scalar_type(KR_TY_INT);
  return overload_type(sc, name, kr_node_field(call, "arguments"), depth);
}

static KrType member_type(KrScope *sc, TSNode n, int depth) {
  KrType b = expr_type(sc, kr_node_field(n, "argument"), depth + 1);
  bool arrow = is(sc, kr_node_field(n, "operator"), "->");
  if (!b.vector || b.depth != (arrow ? 1 : 0)) return unknown_type();
  return scalar_type(b.cls);
}

static KrType expr_type(KrScope *sc, TSNode n, int depth) {
  if (ts_node_is_null(n) || depth > MAX_DEPTH) return unknown_type();
  TSSymbol s = sym(n);
  const KrSyms *y = &sc->t->sym;
  if (s == y->number_literal) return literal_type(text(sc, n));
  if (s == sc->t->sym.char_literal || s == sc->t->sym.lit_true || s == sc->t->sym.lit_false)
    return scalar_type(KR_TY_INT);
  if (s == y->identifier) return kr_type_of_ident(sc, text(sc, n));
  if (s == y->parenthesized_expression)
    return ts_node_named_child_count(n) == 1 ? expr_type(sc, ts_node_named_child(n, 0), depth + 1)
                                             : unknown_type();
  if (s == y->field_expression) return member_type(sc, n, depth);
  if (s == y->subscript_expression) {
    KrType b = expr_type(sc, kr_node_field(n, "argument"), depth + 1);
    if (b.depth == 0) return unknown_type();
    b.depth--;
    return b;
  }
  if (s == y->pointer_expression) {
    KrType b = expr_type(sc, kr_node_field(n, "argument"), depth + 1);
    if (b.cls == KR_TY_UNKNOWN) return b;
    if (strcmp(kr_node_operator(sc->t, n, sc->a), "&") == 0) b.depth++;
    else if (b.depth) b.depth--;
    else return unknown_type();
    return b;
  }
  if (s == y->cast_expression) return descriptor_type(sc, kr_node_field(n, "type"));
  if (s == y->unary_expression) {
    if (strcmp(kr_node_operator(sc->t, n, sc->a), "!") == 0) return scalar_type(KR_TY_INT);
    return promote(expr_type(sc, kr_node_field(n, "argument"), depth + 1));
  }
  if (s == y->update_expression) return expr_type(sc, kr_node_field(n, "argument"), depth + 1);
  if (s == y->binary_expression) {
    const char *op = kr_node_operator(sc->t, n, sc->a);
    if (strchr("+-*/%&|^", op[0]) && (op[1] == 0)) return arith(sc, n, op, depth);
    if (strcmp(op, "<<") == 0 || strcmp(op, ">>") == 0)
      return promote(expr_type(sc, kr_node_field(n, "left"), depth + 1));
    return scalar_type(KR_TY_INT); /* comparisons, && and || */
  }
  if (s == y->conditional_expression) {
    KrType a = expr_type(sc, kr_node_field(n, "consequence"), depth + 1);
    KrType b = expr_type(sc, kr_node_field(n, "alternative"), depth + 1);
    if (types_equal(a, b)) return a;
    return scalar_type(arith_class(promote(a).cls, promote(b).cls));
  }
  if (s == y->assignment_expression) return expr_type(sc, kr_node_field(n, "left"), depth + 1);
  if (s == y->comma_expression) return expr_type(sc, kr_node_field(n, "right"), depth + 1);
  if (s == y->sizeof_expression) return scalar_type(KR_TY_ULONG);
  if (s == y->call_expression) return call_type(sc, n, depth);
  return unknown_type();
}

KrType kr_type_of(KrScope *sc, TSNode expr) { return expr_type(sc, expr, 0); }

/* ==== Types written as text ==================================================================== */
/* Questions the analyses and passes ask of a type as written, before (or instead of) a class. */

const char *kr_type_pointee_text(const char *ty, bool *is_const, KrArena *arena) {
  const char *star = strrchr(ty, '*');
  if (!star) return NULL;
  char *s = kr_arena_strndup(arena, ty, (size_t)(star - ty));
  size_t n = strlen(s);
  while (n > 0 && s[n - 1] == ' ') s[--n] = 0;
  *is_const = strstr(s, "const") != NULL;
  for (;;) {
    if (strncmp(s, "const ", 6) == 0)
      s += 6;
    else if (strncmp(s, "volatile ", 9) == 0)
      s += 9;
    else
      break;
  }
  n = strlen(s);
  if (n > 6 && strcmp(s + n - 6, " const") == 0) s[n - 6] = 0;
  return s;
}

bool kr_type_text_maybe_integer(const char *ty) {
  static const char *const floats[] = {"float", "double", "half", "bfloat16", "__nv_fp8", "bool"};
  for (size_t i = 0; i < sizeof floats / sizeof *floats; i++)
    if (strstr(ty, floats[i])) return false;
  size_t n = strlen(ty);
  while (n > 0 && (ty[n - 1] == ' ' || ty[n - 1] == '&')) n--;
  if (n > 0 && ty[n - 1] >= '1' && ty[n - 1] <= '4') {
    static const char *const vec[] = {"char", "short", "int", "long", "longlong"};
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++) {
      size_t m = strlen(vec[i]);
      if (n >= m + 1 && memcmp(ty + n - 1 - m, vec[i], m) == 0) return false;
    }
  }
  return true;
}

bool kr_type_has_ldg(const char *t) {
  static const char *const ok[] = {
    "char", "signed char", "unsigned char", "short", "unsigned short", "short int",
    "unsigned short int", "int", "unsigned", "unsigned int", "signed", "signed int", "long",
    "unsigned long", "long int", "unsigned long int", "long long", "unsigned long long",
    "long long int", "unsigned long long int", "float", "double", "char2", "char4", "uchar2",
    "uchar4", "short2", "short4", "ushort2", "ushort4", "int2", "int4", "uint2", "uint4",
    "longlong2", "ulonglong2", "float2", "float4", "double2", "__half", "__half2", "half",
    "half2", "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162", "size_t",
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    NULL};
  if (!t) return false;
  for (size_t i = 0; ok[i]; i++)
    if (strcmp(t, ok[i]) == 0) return true;
  return false;
}

/* ---- Template lists ----------------------------------------------------------------------------------
 * A kernel's template parameters ("typename T, int BS") and a launch's template arguments ("float,
 * 128") are text in the model; an entry is what lies between the commas outside <> and (), blanks
 * trimmed. */

/* The bounds of entry n (0-based) of `list` into [*s, *e); false past its end. */
static bool template_entry(const char *list, int n, const char **s, const char **e) {
  int depth = 0, at = 0;
  const char *start = list;
  for (const char *p = list;; p++) {
    if (*p == '<' || *p == '(') depth++;
    else if (*p == '>' || *p == ')') depth--;
    if (*p != 0 && (*p != ',' || depth != 0)) continue;
    if (at++ == n) {
      while (start < p && *start == ' ') start++;
      while (p > start && p[-1] == ' ') p--;
      *s = start;
      *e = p;
      return true;
    }
    if (*p == 0) return false;
    start = p + 1;
  }
}

/* Whether the parameter [s, e) ("typename T", "int BS = 128") is named `name`: the identifier that
 * ends it, before a default; with type_only, for a type parameter only. */
static bool template_param_is(const char *s, const char *e, const char *name, bool type_only) {
  if (type_only && strncmp(s, "typename ", 9) != 0 && strncmp(s, "class ", 6) != 0) return false;
  int depth = 0;
  for (const char *p = s; p < e; p++) {
    if (*p == '<' || *p == '(') depth++;
    else if (*p == '>' || *p == ')') depth--;
    else if (*p == '=' && depth == 0) e = p;
  }
  while (e > s && e[-1] == ' ') e--;
  const char *n = e;
  while (n > s && kr_ident_char(n[-1])) n--;
  return (size_t)(e - n) == strlen(name) && memcmp(n, name, (size_t)(e - n)) == 0;
}

int kr_type_template_param(const char *params, const char *name, bool type_only) {
  const char *s, *e;
  for (int i = 0; params && template_entry(params, i, &s, &e); i++)
    if (template_param_is(s, e, name, type_only)) return i;
  return -1;
}

const char *kr_type_template_arg(const char *args, int index, KrArena *arena) {
  const char *s, *e;
  if (!args || index < 0 || !template_entry(args, index, &s, &e)) return NULL;
  return kr_arena_strndup(arena, s, (size_t)(e - s));
}

const char *kr_type_template_args_normal(const char *args, KrArena *arena) {
  KrBuf b = {0};
  const char *e;
  for (int i = 0; (e = kr_type_template_arg(args, i, arena)) != NULL; i++) {
    while (*e && isspace((unsigned char)*e)) e++;
    size_t n = strlen(e);
    while (n && isspace((unsigned char)e[n - 1])) n--;
    kr_buf_printf(&b, "%s%.*s", i ? ", " : "", (int)n, e);
  }
  const char *r = kr_arena_strndup(arena, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return r;
}

/* ---- Aliases ---------------------------------------------------------------------------------------- */

static const char *folded(const KrTree *tree, TSNode n, KrArena *arena) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  const char *t = tree->src->text;
  KrBuf b = {0};
  bool space = false;
  for (uint32_t i = s; i < e; i++) {
    char c = t[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
      space = b.len > 0;
      continue;
    }
    if (space) kr_buf_putc(&b, ' ');
    space = false;
    kr_buf_putc(&b, c);
  }
  const char *r = kr_arena_strndup(arena, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return r;
}

/* What `name` is an alias of among the declarations under `scope`, or NULL. */
static const char *alias_in(const KrTree *tree, TSNode scope, const char *name, KrArena *arena) {
  uint32_t n = ts_node_named_child_count(scope);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_named_child(scope, i);
    const char *type = ts_node_type(c);
    const char *found = NULL;
    if (strcmp(type, "preproc_def") == 0) {
      TSNode nm = ts_node_child_by_field_name(c, "name", 4), v = ts_node_child_by_field_name(c, "value", 5);
      if (!ts_node_is_null(nm) && !ts_node_is_null(v) && strcmp(folded(tree, nm, arena), name) == 0)
        found = folded(tree, v, arena);
    } else if (strcmp(type, "type_definition") == 0) {
      TSNode d = ts_node_child_by_field_name(c, "declarator", 10), t = ts_node_child_by_field_name(c, "type", 4);
      /* only a plain name: `typedef float *fptr;` is no element type */
      if (!ts_node_is_null(d) && !ts_node_is_null(t) && strcmp(ts_node_type(d), "type_identifier") == 0 &&
          strcmp(folded(tree, d, arena), name) == 0)
        found = folded(tree, t, arena);
    } else if (strcmp(type, "alias_declaration") == 0) {
      TSNode nm = ts_node_child_by_field_name(c, "name", 4), t = ts_node_child_by_field_name(c, "type", 4);
      if (!ts_node_is_null(nm) && !ts_node_is_null(t) && strcmp(folded(tree, nm, arena), name) == 0) {
        /* `using v = float4;`: the type_descriptor's text, unless it declares a pointer */
        const char *txt = folded(tree, t, arena);
        if (!strchr(txt, '*') && !strchr(txt, '&')) found = txt;
      }
    } else if (strcmp(type, "namespace_definition") == 0 || strcmp(type, "linkage_specification") == 0 ||
               strncmp(type, "preproc_if", 10) == 0 || strcmp(type, "preproc_else") == 0 ||
               strcmp(type, "preproc_elif") == 0) {
      TSNode body = ts_node_child_by_field_name(c, "body", 4);
      found = alias_in(tree, ts_node_is_null(body) ? c : body, name, arena);
    }
    if (found) return found;
  }
  return NULL;
}

const char *kr_type_unalias(const KrTree *tree, const char *name, KrArena *arena) {
  const char *t = name;
  for (int depth = 0; t && depth < 8; depth++) {
    const char *c = t;
    if (strncmp(c, "const ", 6) == 0) c += 6;
    const char *next = alias_in(tree, kr_tree_root(tree), c, arena);
    if (!next || strcmp(next, c) == 0) return t;
    t = next;
  }
  return t;
}
