/* frontend/loops.c: loop analyses of one kernel (loops.h): the declarations the kernel can see,
 * integer constant evaluation, scalar types of expressions, canonical for loops and their trip
 * counts, what a loop body does (modifies the induction variable, leaves early), the set of
 * variables that vary across a loop's iterations, and where text can be put before a loop.
 *
 * The analyses are conservative in one direction only: whatever they cannot see through (a call
 * to an unknown function, a name declared twice, a template type) makes a fact unknown, never
 * assumed. Passes turn unknown into a refusal with the reason given here. */
#include "frontend/loops.h"

#include "frontend/affine.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ==== Context ================================================================================ */

/* Node types this file needs beyond the shared KrSyms, resolved once per KrLoops. */
typedef struct Syms {
  TSSymbol break_statement, continue_statement, goto_statement, labeled_statement,
    case_statement, switch_statement, char_literal, true_, false_, type_descriptor,
    template_parameter_list, type_parameter_declaration, optional_type_parameter_declaration,
    variadic_type_parameter_declaration, initializer_list, preproc_else, preproc_elif,
    gnu_asm_output_operand, placeholder_type_specifier, parenthesized_declarator;
} Syms;

/* One declared name the kernel can see: a kernel or template parameter, a local of the kernel, or
 * a file-scope variable. */
typedef struct Decl {
  const char *name;
  const char *type;     /* the type as written, whitespace folded ("unsigned int") */
  KrType ty;
  bool is_const;        /* const or constexpr value (a pointer to const is not) */
  bool is_ref;          /* a reference declarator */
  bool is_memory;       /* static, __shared__, volatile or extern: others may change it */
  bool in_kernel;       /* declared in the kernel (parameters included) */
  bool is_param;        /* a kernel parameter */
  bool is_template;     /* a non-type template parameter of the kernel */
  TSNode value;         /* the initializer, or a null node */
  uint32_t at;
} Decl;

typedef struct Macro {
  const char *name;
  const char *body;     /* NULL for function-like macros */
  uint32_t at;
  bool conditional;     /* inside #if/#ifdef/#else */
} Macro;

typedef struct Func {
  const char *name;
  TSNode params;        /* parameter_list */
  KrType ret;
} Func;

/* A modification or declaration seen by scan(), for body facts and varying sets. */
typedef struct Event {
  const char *name;
  TSNode id;            /* the identifier, for name resolution; null when not kept */
  uint32_t at;
  const char *what;     /* "assigned", "incremented", "declared", … */
  bool is_decl;
} Event;

typedef KrVec(Event) Events;

typedef struct Exits {
  KrWhere brk, cont, ret, jump;
} Exits;

struct KrLoops {
  const KrTree *t;
  const KrSyms *s;
  Syms x;
  const KrKernel *k;
  KrArena *a;
  KrVec(Decl) decls;
  KrVec(Macro) macros;
  KrVec(const char *) undefs;
  KrVec(const char *) type_params;   /* template type parameter names: their types are unknown */
  KrVec(Func) funcs;
  Events escaped;                    /* address taken, bound to a reference, written in a lambda */
  KrLoopInfo **infos;
  int eval_depth;                    /* guards recursive constant definitions */
};

#define MAX_DEPTH 400   /* tree depth beyond which walks stop (pathological input only) */

static TSSymbol sym_of(const TSLanguage *lang, const char *name) {
  return ts_language_symbol_for_name(lang, name, (uint32_t)strlen(name), true);
}

static void resolve(Syms *x) {
  const TSLanguage *l = kr_cuda_language();
  x->break_statement = sym_of(l, "break_statement");
  x->continue_statement = sym_of(l, "continue_statement");
  x->goto_statement = sym_of(l, "goto_statement");
  x->labeled_statement = sym_of(l, "labeled_statement");
  x->case_statement = sym_of(l, "case_statement");
  x->switch_statement = sym_of(l, "switch_statement");
  x->char_literal = sym_of(l, "char_literal");
  x->true_ = sym_of(l, "true");
  x->false_ = sym_of(l, "false");
  x->type_descriptor = sym_of(l, "type_descriptor");
  x->template_parameter_list = sym_of(l, "template_parameter_list");
  x->type_parameter_declaration = sym_of(l, "type_parameter_declaration");
  x->optional_type_parameter_declaration = sym_of(l, "optional_type_parameter_declaration");
  x->variadic_type_parameter_declaration = sym_of(l, "variadic_type_parameter_declaration");
  x->initializer_list = sym_of(l, "initializer_list");
  x->preproc_else = sym_of(l, "preproc_else");
  x->preproc_elif = sym_of(l, "preproc_elif");
  x->gnu_asm_output_operand = sym_of(l, "gnu_asm_output_operand");
  x->placeholder_type_specifier = sym_of(l, "placeholder_type_specifier");
  x->parenthesized_declarator = sym_of(l, "parenthesized_declarator");
}

/* ---- Small helpers ---------------------------------------------------------------------------- */

static TSSymbol sym(TSNode n) { return ts_node_symbol(n); }

static TSNode field(TSNode n, const char *name) {
  return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

static char *text(KrLoops *lx, TSNode n) { return kr_node_text(lx->t, n, lx->a); }

/* Text with runs of whitespace folded to one space (trimmed), for messages and type names. */
static char *fold(KrArena *a, const char *s, size_t n) {
  char *out = kr_arena_alloc(a, n + 1), *w = out;
  bool space = false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
      space = w != out;
      continue;
    }
    if (space) *w++ = ' ';
    space = false;
    *w++ = c;
  }
  *w = 0;
  return out;
}

static char *flat(KrLoops *lx, TSNode n) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return fold(lx->a, lx->t->src->text + s, e - s);
}

static bool is(KrLoops *lx, TSNode n, const char *s) { return kr_node_text_is(lx->t, n, s); }

/* The operator token of a binary, unary, update, assignment or pointer expression. */
static char *op_of(KrLoops *lx, TSNode n) {
  TSNode o = field(n, "operator");
  return ts_node_is_null(o) ? "" : text(lx, o);
}

static TSNode strip_parens(KrLoops *lx, TSNode n) {
  while (!ts_node_is_null(n) && sym(n) == lx->s->parenthesized_expression &&
         ts_node_named_child_count(n) == 1)
    n = ts_node_named_child(n, 0);
  return n;
}

static bool ident_is(KrLoops *lx, TSNode n, const char *name) {
  n = strip_parens(lx, n);
  return !ts_node_is_null(n) && sym(n) == lx->s->identifier && is(lx, n, name);
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *pos(KrLoops *lx, uint32_t at) {
  const KrSource *src = lx->t->src;
  uint32_t line = kr_source_line_of(src, at);
  return kr_arena_printf(lx->a, "%u:%u", line + 1, at - src->line_starts[line] + 1);
}

/* "what at LINE:COL". */
static KrWhere where(KrLoops *lx, uint32_t at, const char *what) {
  KrWhere w = {.found = true, .at = at};
  w.what = kr_arena_printf(lx->a, "%s at %s", what, pos(lx, at));
  return w;
}

/* ==== Types of declared names ================================================================== */

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
static KrType type_of_name(const char *written) {
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

/* ==== Collecting declarations, macros and functions ============================================ */

static bool has_word(KrLoops *lx, TSNode decl, const char *word) {
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_child(decl, i);
    TSSymbol s = sym(c);
    if ((s == lx->s->type_qualifier || s == lx->s->storage_class_specifier) && is(lx, c, word))
      return true;
  }
  return false;
}

/* Follows a declarator down to its name, counting pointer/array levels. */
static TSNode declarator_name(KrLoops *lx, TSNode d, int *depth, bool *is_ref, TSNode *value) {
  for (int guard = 0; !ts_node_is_null(d) && guard < 64; guard++) {
    TSSymbol s = sym(d);
    if (s == lx->s->identifier || s == lx->s->field_identifier) return d;
    if (s == lx->s->init_declarator) {
      if (value) *value = field(d, "value");
    } else if (s == lx->s->pointer_declarator || s == lx->s->array_declarator) {
      (*depth)++;
    } else if (s == lx->s->reference_declarator) {
      *is_ref = true;
      d = ts_node_named_child(d, 0);
      continue;
    } else if (s != lx->x.parenthesized_declarator && s != lx->s->attribute_specifier) {
      return (TSNode){0};
    }
    TSNode next = field(d, "declarator");
    d = ts_node_is_null(next) ? ts_node_named_child(d, 0) : next;
  }
  return (TSNode){0};
}

static void add_decl(KrLoops *lx, TSNode decl, TSNode d, bool in_kernel) {
  Decl x = {.in_kernel = in_kernel};
  int depth = 0;
  TSNode name = declarator_name(lx, d, &depth, &x.is_ref, &x.value);
  if (ts_node_is_null(name)) return;
  TSNode type = field(decl, "type");
  x.name = text(lx, name);
  x.type = ts_node_is_null(type) ? "" : flat(lx, type);
  x.ty = type_of_name(x.type);
  if (x.ty.cls != KR_TY_UNKNOWN) x.ty.depth = depth;
  x.is_const = depth == 0 && (has_word(lx, decl, "const") || has_word(lx, decl, "constexpr"));
  x.is_memory = has_word(lx, decl, "static") || has_word(lx, decl, "__shared__") ||
                has_word(lx, decl, "volatile") || has_word(lx, decl, "extern");
  x.at = ts_node_start_byte(decl);
  kr_vec_push(lx->a, &lx->decls, x);
}

/* Every declarator of a declaration (or parameter declaration). */
static void add_declarators(KrLoops *lx, TSNode decl, bool in_kernel) {
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (f && strcmp(f, "declarator") == 0) add_decl(lx, decl, ts_node_child(decl, i), in_kernel);
  }
}

static void add_func(KrLoops *lx, TSNode def) {
  TSNode d = field(def, "declarator");
  int depth = 0;
  while (!ts_node_is_null(d) && sym(d) != lx->s->function_declarator) {
    if (sym(d) == lx->s->pointer_declarator) depth++;
    TSNode next = field(d, "declarator");
    d = ts_node_is_null(next) ? ts_node_named_child(d, 0) : next;
  }
  if (ts_node_is_null(d)) return;
  TSNode name = field(d, "declarator");
  if (ts_node_is_null(name) || sym(name) != lx->s->identifier) return;
  Func f = {.name = text(lx, name), .params = field(d, "parameters")};
  TSNode type = field(def, "type");
  f.ret = type_of_name(ts_node_is_null(type) ? "" : flat(lx, type));
  if (f.ret.cls != KR_TY_UNKNOWN) f.ret.depth = depth;
  kr_vec_push(lx->a, &lx->funcs, f);
}

static bool declares_function(KrLoops *lx, TSNode decl) {
  TSNode d = field(decl, "declarator");
  for (int g = 0; !ts_node_is_null(d) && g < 16; g++) {
    if (sym(d) == lx->s->function_declarator) return true;
    TSNode next = field(d, "declarator");
    d = next;
  }
  return false;
}

static void add_macro(KrLoops *lx, TSNode n, bool conditional) {
  TSNode name = field(n, "name");
  if (ts_node_is_null(name)) return;
  Macro m = {.name = text(lx, name), .at = ts_node_start_byte(n), .conditional = conditional};
  if (sym(n) == lx->s->preproc_def) {
    TSNode v = field(n, "value");
    m.body = ts_node_is_null(v) ? "" : text(lx, v);
  }
  kr_vec_push(lx->a, &lx->macros, m);
}

static void add_undef(KrLoops *lx, TSNode n) {
  TSNode dir = field(n, "directive");
  TSNode arg = field(n, "argument");
  if (ts_node_is_null(dir) || ts_node_is_null(arg) || !is(lx, dir, "#undef")) return;
  kr_vec_push(lx->a, &lx->undefs, fold(lx->a, text(lx, arg), strlen(text(lx, arg))));
}

static void add_template_params(KrLoops *lx, TSNode list) {
  uint32_t n = ts_node_named_child_count(list);
  for (uint32_t i = 0; i < n; i++) {
    TSNode p = ts_node_named_child(list, i);
    TSSymbol s = sym(p);
    if (s == lx->s->parameter_declaration || s == lx->s->optional_parameter_declaration) {
      size_t before = lx->decls.len;
      add_declarators(lx, p, true);
      for (size_t j = before; j < lx->decls.len; j++) {
        lx->decls.data[j].is_template = true;
        lx->decls.data[j].value = (TSNode){0};
      }
    } else if (s == lx->x.type_parameter_declaration ||
               s == lx->x.optional_type_parameter_declaration ||
               s == lx->x.variadic_type_parameter_declaration) {
      for (uint32_t j = 0; j < ts_node_named_child_count(p); j++) {
        TSNode c = ts_node_named_child(p, j);
        if (sym(c) == lx->s->type_identifier) kr_vec_push(lx->a, &lx->type_params, text(lx, c));
      }
    }
  }
}

/* One walk over the whole file: macros and #undefs anywhere; file-scope variables and functions
 * outside function bodies; every declaration inside the kernel. */
static void collect(KrLoops *lx, TSNode n, bool in_fn, bool in_kernel, bool cond, int depth) {
  if (depth > MAX_DEPTH) return;
  TSSymbol s = sym(n);
  if (s == lx->s->preproc_def || s == lx->s->preproc_function_def) {
    add_macro(lx, n, cond);
    return;
  }
  if (s == lx->s->preproc_call) {
    add_undef(lx, n);
    return;
  }
  if (s == lx->s->preproc_if || s == lx->s->preproc_ifdef || s == lx->x.preproc_else ||
      s == lx->x.preproc_elif)
    cond = true;
  if (s == lx->s->function_definition) {
    if (!in_fn) add_func(lx, n);
    if (ts_node_eq(n, lx->k->node)) in_kernel = true;
    in_fn = true;
  } else if (s == lx->s->declaration && (in_kernel || !in_fn)) {
    if (!in_fn && declares_function(lx, n)) add_func(lx, n);
    else add_declarators(lx, n, in_kernel);
  } else if (s == lx->s->parameter_declaration && in_kernel) {
    add_declarators(lx, n, true); /* lambda parameters: they shadow, so they count */
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    collect(lx, ts_node_named_child(n, i), in_fn, in_kernel, cond, depth + 1);
}

static void add_kernel_params(KrLoops *lx) {
  for (size_t i = 0; i < lx->k->params.len; i++) {
    const KrParam *p = &lx->k->params.data[i];
    if (!*p->name) continue;
    Decl x = {.name = p->name, .type = p->base, .in_kernel = true, .is_param = true,
              .is_ref = p->is_reference, .at = p->span.start};
    x.ty = type_of_name(p->base);
    if (x.ty.cls != KR_TY_UNKNOWN) x.ty.depth = p->pointer_depth;
    kr_vec_push(lx->a, &lx->decls, x);
  }
  TSNode parent = ts_node_parent(lx->k->node);
  if (!ts_node_is_null(parent) && sym(parent) == lx->s->template_declaration) {
    TSNode list = field(parent, "parameters");
    if (!ts_node_is_null(list)) add_template_params(lx, list);
  }
}

/* ==== Calls that could modify an argument ====================================================== */

/* Functions (CUDA and C math, intrinsics) that take every argument by value. */
static const char *const by_value[] = {
  "min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "abs", "labs", "llabs",
  "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "sqrt", "sqrtf", "rsqrt", "rsqrtf", "cbrt",
  "cbrtf", "rcbrt", "rcbrtf", "exp", "expf", "exp2", "exp2f", "exp10", "exp10f", "expm1",
  "expm1f", "log", "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "sin", "sinf",
  "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2",
  "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf", "pow", "powf", "floor", "floorf",
  "ceil", "ceilf", "round", "roundf", "rint", "rintf", "lrint", "lrintf", "llrint", "llrintf",
  "lround", "lroundf", "trunc", "truncf", "fma", "fmaf", "fmod", "fmodf", "remainder",
  "remainderf", "erf", "erff", "erfc", "erfcf", "erfinv", "erfinvf", "lgamma", "lgammaf",
  "tgamma", "tgammaf", "hypot", "hypotf", "rhypot", "rhypotf", "copysign", "copysignf", "isnan",
  "isinf", "isfinite", "signbit", "ldexp", "ldexpf", "normcdf", "normcdff", "sinpi", "sinpif",
  "cospi", "cospif", "fdim", "fdimf", "nextafter", "nextafterf", "printf", "assert",
};

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

static bool in_list(const char *const *list, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return true;
  return false;
}

/* The callee's name when it is a plain identifier (or a template function), else NULL. */
static const char *callee_name(KrLoops *lx, TSNode call) {
  TSNode f = field(call, "function");
  if (ts_node_is_null(f)) return NULL;
  if (sym(f) == lx->s->template_function) f = field(f, "name");
  if (ts_node_is_null(f) || sym(f) != lx->s->identifier) return NULL;
  return text(lx, f);
}

/* Does parameter `i` of this parameter list take its argument by non-const reference (or is the
 * list variadic past it)? */
static bool param_by_ref(KrLoops *lx, TSNode list, uint32_t i) {
  if (ts_node_is_null(list)) return true;
  uint32_t n = ts_node_named_child_count(list), k = 0;
  for (uint32_t j = 0; j < n; j++) {
    TSNode p = ts_node_named_child(list, j);
    TSSymbol s = sym(p);
    if (s == lx->s->variadic_parameter_declaration) return true;
    if (s != lx->s->parameter_declaration && s != lx->s->optional_parameter_declaration) continue;
    if (k++ != i) continue;
    int depth = 0;
    bool ref = false;
    declarator_name(lx, field(p, "declarator"), &depth, &ref, NULL);
    if (!ref) {
      /* An unnamed reference parameter: `int &` */
      TSNode d = field(p, "declarator");
      ref = !ts_node_is_null(d) && strchr(text(lx, d), '&') != NULL;
    }
    return ref && !has_word(lx, p, "const");
  }
  return false;
}

/* Could this call modify a variable passed as its argument number `i`? Unknown callees could. */
static bool call_may_modify(KrLoops *lx, TSNode call, uint32_t i, const char **callee) {
  const char *name = callee_name(lx, call);
  *callee = name ? name : "a function expression";
  if (!name) {
    TSNode f = field(call, "function");
    /* Functional casts such as float(x) and make_float4-style constructors take values. */
    if (!ts_node_is_null(f) && (sym(f) == lx->s->primitive_type)) return false;
    return true;
  }
  bool known = false;
  for (size_t k = 0; k < lx->funcs.len; k++) {
    if (strcmp(lx->funcs.data[k].name, name) != 0) continue;
    known = true;
    if (param_by_ref(lx, lx->funcs.data[k].params, i)) return true;
  }
  if (known) return false;
  if (strncmp(name, "__", 2) == 0 || strncmp(name, "atomic", 6) == 0 ||
      strncmp(name, "make_", 5) == 0 || strcmp(name, "static_cast") == 0 ||
      strcmp(name, "reinterpret_cast") == 0)
    return false;
  return !in_list(by_value, sizeof by_value / sizeof *by_value, name);
}

/* ==== Scanning statements: modifications, declarations and exits =============================== */

static void declared(KrLoops *lx, Events *ev, TSNode id) {
  Event e = {.name = text(lx, id), .id = id, .at = ts_node_start_byte(id), .what = "declared",
             .is_decl = true};
  kr_vec_push(lx->a, ev, e);
}

/* The variable an lvalue names at its root: `a` for a, (a), a.x; NULL for memory (a[i], *p). */
static TSNode lvalue_id(KrLoops *lx, TSNode n) {
  n = strip_parens(lx, n);
  while (!ts_node_is_null(n) && sym(n) == lx->s->field_expression && is(lx, field(n, "operator"), "."))
    n = strip_parens(lx, field(n, "argument"));
  if (ts_node_is_null(n) || sym(n) != lx->s->identifier) return (TSNode){0};
  return n;
}

/* Records that the variable at the root of lvalue n is modified (no event for memory). */
static void modified(KrLoops *lx, Events *ev, TSNode n, uint32_t at, const char *what) {
  TSNode id = lvalue_id(lx, n);
  if (ts_node_is_null(id)) return;
  Event e = {.name = text(lx, id), .id = id, .at = at, .what = what};
  kr_vec_push(lx->a, ev, e);
}

static void scan_decl(KrLoops *lx, TSNode decl, Events *ev) {
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (!f || strcmp(f, "declarator") != 0) continue;
    int depth = 0;
    bool ref = false;
    TSNode value = {0};
    TSNode name = declarator_name(lx, ts_node_child(decl, i), &depth, &ref, &value);
    if (ts_node_is_null(name)) continue;
    declared(lx, ev, name);
    /* `int &r = x;` makes r an alias of x: x may change through r. */
    if (ref && !has_word(lx, decl, "const") && !ts_node_is_null(value))
      modified(lx, ev, value, ts_node_start_byte(value), "bound to a reference");
  }
}

static void scan_call(KrLoops *lx, TSNode call, Events *ev) {
  TSNode fn = field(call, "function");
  if (!ts_node_is_null(fn) && sym(fn) == lx->s->field_expression && is(lx, field(fn, "operator"), "."))
    modified(lx, ev, field(fn, "argument"), ts_node_start_byte(call),
             "has a member function called on it");
  TSNode args = field(call, "arguments");
  if (ts_node_is_null(args)) return;
  uint32_t n = ts_node_named_child_count(args), k = 0;
  for (uint32_t i = 0; i < n; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (sym(a) == lx->s->comment) continue;
    const char *callee;
    if (!ts_node_is_null(lvalue_id(lx, a)) && call_may_modify(lx, call, k, &callee))
      modified(lx, ev, a, ts_node_start_byte(a),
               kr_arena_printf(lx->a, "passed to '%s', which could take it by reference", callee));
    k++;
  }
}

typedef struct Nest {
  bool loop, sw, lambda;
} Nest;

static void scan_exit(KrLoops *lx, TSNode n, Nest nest, Exits *ex) {
  TSSymbol s = sym(n);
  uint32_t at = ts_node_start_byte(n);
  if (nest.lambda) return;
  if (s == lx->x.break_statement && !nest.loop && !nest.sw && !ex->brk.found)
    ex->brk = where(lx, at, "'break'");
  else if (s == lx->x.continue_statement && !nest.loop && !ex->cont.found)
    ex->cont = where(lx, at, "'continue'");
  else if (s == lx->s->return_statement && !ex->ret.found)
    ex->ret = where(lx, at, "'return'");
  else if (s == lx->x.goto_statement && !ex->jump.found)
    ex->jump = where(lx, at, "'goto'");
  else if (s == lx->x.labeled_statement && !ex->jump.found)
    ex->jump = where(lx, at, "a label");
  else if (s == lx->x.case_statement && !nest.sw && !ex->jump.found)
    ex->jump = where(lx, at, "a case label of an enclosing switch");
}

static bool has_word_in(const char *body, const char *w) {
  size_t n = strlen(w);
  for (const char *p = strstr(body, w); p; p = strstr(p + 1, w))
    if ((p == body || !ident_char(p[-1])) && !ident_char(p[n])) return true;
  return false;
}

/* Does a macro body assign or increment anything? (`=` that is not part of ==, !=, <= or >=.) */
static bool body_mutates(const char *b) {
  if (strstr(b, "++") || strstr(b, "--")) return true;
  for (const char *p = strchr(b, '='); p; p = strchr(p + 1, '=')) {
    char prev = p > b ? p[-1] : 0, prev2 = p > b + 1 ? p[-2] : 0;
    if (p[1] == '=' || prev == '=' || prev == '!') continue;
    if ((prev == '<' || prev == '>') && prev2 != prev) continue;
    return true;
  }
  return false;
}

/* An identifier naming a macro of this file: what its expansion may do is taken from its body's
 * text: every word of a body that assigns counts as modified, and break/continue/return/goto in
 * it count as exits. */
static void scan_macro(KrLoops *lx, TSNode id, Nest nest, Events *ev, Exits *ex) {
  const char *name = text(lx, id);
  uint32_t at = ts_node_start_byte(id);
  for (size_t i = 0; i < lx->macros.len; i++) {
    const Macro *m = &lx->macros.data[i];
    if (strcmp(m->name, name) != 0 || !m->body) continue;
    if (ex && !nest.lambda) {
      const char *what = kr_arena_printf(lx->a, "'%%s' inside macro '%s'", name);
      if (!nest.loop && !nest.sw && has_word_in(m->body, "break") && !ex->brk.found)
        ex->brk = where(lx, at, kr_arena_printf(lx->a, what, "break"));
      if (!nest.loop && has_word_in(m->body, "continue") && !ex->cont.found)
        ex->cont = where(lx, at, kr_arena_printf(lx->a, what, "continue"));
      if (has_word_in(m->body, "return") && !ex->ret.found)
        ex->ret = where(lx, at, kr_arena_printf(lx->a, what, "return"));
      if (has_word_in(m->body, "goto") && !ex->jump.found)
        ex->jump = where(lx, at, kr_arena_printf(lx->a, what, "goto"));
    }
    if (!body_mutates(m->body)) continue;
    for (const char *p = m->body; *p;) {
      if (!ident_char(*p) || (*p >= '0' && *p <= '9')) {
        p++;
        continue;
      }
      const char *e = p;
      while (ident_char(*e)) e++;
      Event x = {.name = kr_arena_strndup(lx->a, p, (size_t)(e - p)), .at = at,
                 .what = kr_arena_printf(lx->a, "possibly assigned by macro '%s'", name)};
      kr_vec_push(lx->a, ev, x);
      p = e;
    }
  }
}

static void scan(KrLoops *lx, TSNode n, Nest nest, Events *ev, Exits *ex, int depth) {
  if (depth > MAX_DEPTH) return;
  TSSymbol s = sym(n);
  uint32_t at = ts_node_start_byte(n);
  if (ex) scan_exit(lx, n, nest, ex);
  if (s == lx->s->identifier && lx->macros.len) scan_macro(lx, n, nest, ev, ex);
  if (s == lx->s->for_range_loop) {
    int depth_ = 0;
    bool ref = false;
    TSNode id = declarator_name(lx, field(n, "declarator"), &depth_, &ref, NULL);
    if (!ts_node_is_null(id)) declared(lx, ev, id);
  }
  if (s == lx->s->assignment_expression) {
    modified(lx, ev, field(n, "left"), at, "assigned");
  } else if (s == lx->s->update_expression) {
    modified(lx, ev, field(n, "argument"), at, "incremented");
  } else if (s == lx->s->pointer_expression && strcmp(op_of(lx, n), "&") == 0) {
    modified(lx, ev, field(n, "argument"), at, "has its address taken");
  } else if (s == lx->s->declaration) {
    scan_decl(lx, n, ev);
  } else if (s == lx->s->parameter_declaration) {
    scan_decl(lx, n, ev); /* lambda parameters */
  } else if (s == lx->s->call_expression) {
    scan_call(lx, n, ev);
  } else if (s == lx->x.gnu_asm_output_operand) {
    modified(lx, ev, field(n, "value"), at, "written by inline asm");
  }
  if (s == lx->s->for_statement || s == lx->s->while_statement || s == lx->s->do_statement ||
      s == lx->s->for_range_loop)
    nest.loop = true;
  else if (s == lx->x.switch_statement)
    nest.sw = true;
  else if (s == lx->s->lambda_expression)
    nest.lambda = true;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) scan(lx, ts_node_named_child(n, i), nest, ev, ex, depth + 1);
}

/* Kernel-wide aliasing: variables whose address is taken or that are bound to a non-const
 * reference anywhere, and variables written inside a lambda (which may run anywhere it is
 * called). They may change wherever a pointer, reference or lambda is used, so they never count
 * as invariant. */
static void collect_escaped(KrLoops *lx) {
  Events all = {0};
  scan(lx, lx->k->body, (Nest){0}, &all, NULL, 0);
  for (size_t i = 0; i < all.len; i++) {
    const Event *e = &all.data[i];
    if (!e->is_decl && (strcmp(e->what, "has its address taken") == 0 ||
                        strcmp(e->what, "bound to a reference") == 0))
      kr_vec_push(lx->a, &lx->escaped, *e);
  }
  /* Writes inside lambdas. */
  Events lam = {0};
  KrVec(TSNode) stack = {0};
  kr_vec_push(lx->a, &stack, lx->k->body);
  while (stack.len) {
    TSNode n = stack.data[--stack.len];
    if (sym(n) == lx->s->lambda_expression) {
      scan(lx, n, (Nest){0}, &lam, NULL, 0);
      continue;
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) kr_vec_push(lx->a, &stack, ts_node_named_child(n, i));
  }
  for (size_t i = 0; i < lam.len; i++)
    if (!lam.data[i].is_decl) {
      Event e = lam.data[i];
      e.what = "assigned inside a lambda";
      kr_vec_push(lx->a, &lx->escaped, e);
    }
}

/* ==== Construction ============================================================================= */

KrLoops *kr_loops_new(const KrTree *tree, const KrKernel *kernel, KrArena *arena) {
  KrLoops *lx = kr_arena_alloc(arena, sizeof *lx);
  lx->t = tree;
  lx->s = &tree->sym;
  lx->k = kernel;
  lx->a = arena;
  resolve(&lx->x);
  add_kernel_params(lx);
  collect(lx, kr_tree_root(tree), false, false, false, 0);
  collect_escaped(lx);
  lx->infos = kr_arena_alloc(arena, (kernel->loops.len + 1) * sizeof *lx->infos);
  return lx;
}

/* ==== Integer constants ======================================================================== */
/* A small evaluator over text, so that macro bodies (which the parser leaves as raw text) and
 * expressions from the tree are handled alike. Values are tracked with their width: arithmetic
 * between 32-bit operands that leaves the int range is not a constant (the C++ program would
 * overflow), and anything unsigned is refused rather than modelled. */

typedef struct Val {
  long long v;
  bool wide;   /* 64-bit (a long literal or a wide cast) */
} Val;

typedef struct Lex {
  KrLoops *lx;
  const char *p, *end;
  uint32_t use_at;   /* where the expression is used, for "declared before use" */
  bool ok;
} Lex;

static bool const_of_name(KrLoops *lx, const char *name, uint32_t use_at, Val *out);
static Val parse_cond(Lex *l);

static void skip_space(Lex *l) {
  for (;;) {
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r' ||
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
  if (p < l->end && (ident_char(*p) || *p == '.' || *p == '\'')) return fail(l);
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
  while (l->p < l->end && *l->p != ')' && (ident_char(*l->p) || *l->p == ' ' || *l->p == ':')) l->p++;
  if (l->p >= l->end || *l->p != ')') {
    l->p = save;
    return false;
  }
  char *name = fold(l->lx->a, s, (size_t)(l->p - s));
  KrType t = type_of_name(name);
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
  if (ident_char(*l->p)) {
    const char *s = l->p;
    while (l->p < l->end && ident_char(*l->p)) l->p++;
    char *name = kr_arena_strndup(l->lx->a, s, (size_t)(l->p - s));
    if (strcmp(name, "true") == 0) return (Val){1, false};
    if (strcmp(name, "false") == 0) return (Val){0, false};
    skip_space(l);
    if (l->p < l->end && (*l->p == '(' || *l->p == '.' || *l->p == '[' || *l->p == ':' ||
                          (*l->p == '-' && l->p + 1 < l->end && l->p[1] == '>')))
      return fail(l); /* a call, member, subscript or qualified name */
    Val v;
    if (!const_of_name(l->lx, name, l->use_at, &v)) return fail(l);
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

static bool eval_text(KrLoops *lx, const char *s, size_t n, uint32_t use_at, Val *out) {
  if (lx->eval_depth > 32) return false;
  lx->eval_depth++;
  Lex l = {.lx = lx, .p = s, .end = s + n, .use_at = use_at, .ok = true};
  Val v = parse_cond(&l);
  skip_space(&l);
  lx->eval_depth--;
  if (!l.ok || l.p != l.end) return false;
  *out = v;
  return true;
}

static bool macro_named(KrLoops *lx, const char *name, const Macro **out) {
  size_t count = 0;
  for (size_t i = 0; i < lx->macros.len; i++)
    if (strcmp(lx->macros.data[i].name, name) == 0) {
      *out = &lx->macros.data[i];
      count++;
    }
  return count > 0 && (count > 1 ? (*out = NULL, true) : true);
}

static bool undefined(KrLoops *lx, const char *name) {
  for (size_t i = 0; i < lx->undefs.len; i++)
    if (strcmp(lx->undefs.data[i], name) == 0) return true;
  return false;
}

/* The value of a name when the file shows it is a constant (loops.h explains which). */
static bool const_of_name(KrLoops *lx, const char *name, uint32_t use_at, Val *out) {
  const Macro *m = NULL;
  if (macro_named(lx, name, &m)) {
    /* Redefined, conditional, function-like, #undef'd or defined after the use: not known. */
    if (!m || m->conditional || !m->body || undefined(lx, name) || m->at > use_at) return false;
    for (size_t i = 0; i < lx->decls.len; i++)
      if (strcmp(lx->decls.data[i].name, name) == 0) return false;
    return eval_text(lx, m->body, strlen(m->body), use_at, out);
  }
  const Decl *d = NULL;
  for (size_t i = 0; i < lx->decls.len; i++) {
    if (strcmp(lx->decls.data[i].name, name) != 0) continue;
    if (d) return false; /* declared twice: which one is meant depends on scope */
    d = &lx->decls.data[i];
  }
  if (!d || !d->is_const || d->is_param || d->is_template || d->is_ref || d->ty.depth ||
      ts_node_is_null(d->value) || (d->ty.cls != KR_TY_INT && d->ty.cls != KR_TY_LONG))
    return false;
  if (d->in_kernel && d->at > use_at) return false;
  uint32_t s = ts_node_start_byte(d->value), e = ts_node_end_byte(d->value);
  Val v;
  if (!eval_text(lx, lx->t->src->text + s, e - s, use_at, &v)) return false;
  if (d->ty.cls == KR_TY_INT && (v.v < INT_MIN || v.v > INT_MAX)) return false;
  out->v = v.v;
  out->wide = d->ty.cls == KR_TY_LONG;
  return true;
}

bool kr_loops_const(KrLoops *self, TSNode expr, long long *value) {
  if (ts_node_is_null(expr)) return false;
  uint32_t s = ts_node_start_byte(expr), e = ts_node_end_byte(expr);
  Val v;
  if (!eval_text(self, self->t->src->text + s, e - s, s, &v)) return false;
  *value = v.v;
  return true;
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
  while (suffix > s && strchr("uUlLfF", suffix[-1]) && !(hex && !floating && strchr("fF", suffix[-1])))
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

static KrType name_type(KrLoops *lx, const char *name) {
  if (is_builtin_index(name)) return (KrType){.cls = KR_TY_UINT, .vector = true};
  if (strcmp(name, "warpSize") == 0) return scalar_type(KR_TY_INT);
  const Macro *m = NULL;
  if (macro_named(lx, name, &m)) {
    if (!m || !m->body || m->conditional || undefined(lx, name)) return unknown_type();
    Val v;
    if (eval_text(lx, m->body, strlen(m->body), m->at + 1, &v))
      return scalar_type(v.wide ? KR_TY_LONG : KR_TY_INT);
    const char *b = m->body;
    while (*b == ' ' || *b == '(' || *b == '-' || *b == '+') b++;
    size_t len = strcspn(b, " )\n\r\t");
    if (len && ((*b >= '0' && *b <= '9') || *b == '.') && b[strspn(b + len, " )\n\r\t") + len] == 0)
      return literal_type(kr_arena_strndup(lx->a, b, len));
    return unknown_type();
  }
  KrType t = unknown_type();
  bool seen = false;
  for (size_t i = 0; i < lx->decls.len; i++) {
    const Decl *d = &lx->decls.data[i];
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

static KrType expr_type(KrLoops *lx, TSNode n, int depth);

static KrType arith(KrLoops *lx, TSNode n, const char *op, int depth) {
  KrType a = expr_type(lx, field(n, "left"), depth + 1);
  KrType b = expr_type(lx, field(n, "right"), depth + 1);
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
static KrType descriptor_type(KrLoops *lx, TSNode d) {
  char *s = flat(lx, d);
  int stars = 0;
  for (char *p = s; *p; p++)
    if (*p == '*') {
      *p = ' ';
      stars++;
    } else if (*p == '&' || *p == '[' || *p == '(') {
      return unknown_type();
    }
  KrType t = type_of_name(fold(lx->a, s, strlen(s)));
  if (t.cls != KR_TY_UNKNOWN) t.depth = stars;
  return t;
}

/* min/max/abs and the C math names (exp, sqrt, …) are overloaded: the type follows the
 * arguments. exp(float) is float and exp(double) double; integer or mixed arguments pick
 * overloads that differ between CUDA's headers and the C++ library, so they are not guessed. */
static KrType overload_type(KrLoops *lx, const char *name, TSNode args, int depth) {
  if (ts_node_is_null(args)) return unknown_type();
  bool int_like = strcmp(name, "min") == 0 || strcmp(name, "max") == 0 || strcmp(name, "abs") == 0;
  char *fname = kr_arena_printf(lx->a, "%sf", name);
  bool math = in_list(returns_float, sizeof returns_float / sizeof *returns_float, fname);
  if (!int_like && !math) return unknown_type();
  KrTyClass c = KR_TY_UNKNOWN;
  size_t n = 0, floats = 0, doubles = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (sym(a) == lx->s->comment) continue;
    KrTyClass at = promote(expr_type(lx, a, depth + 1)).cls;
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

static KrType call_type(KrLoops *lx, TSNode call, int depth) {
  TSNode f = field(call, "function");
  if (ts_node_is_null(f)) return unknown_type();
  if (sym(f) == lx->s->primitive_type || sym(f) == lx->s->sized_type_specifier)
    return type_of_name(flat(lx, f)); /* float(x) */
  if (sym(f) == lx->s->template_function) {
    TSNode name = field(f, "name"), args = field(f, "arguments");
    if (!ts_node_is_null(name) && is(lx, name, "static_cast") && !ts_node_is_null(args) &&
        ts_node_named_child_count(args) == 1)
      return descriptor_type(lx, ts_node_named_child(args, 0));
    return unknown_type();
  }
  const char *name = callee_name(lx, call);
  if (!name) return unknown_type();
  KrType t = unknown_type();
  bool seen = false;
  for (size_t i = 0; i < lx->funcs.len; i++) {
    if (strcmp(lx->funcs.data[i].name, name) != 0) continue;
    if (seen && !types_equal(t, lx->funcs.data[i].ret)) return unknown_type();
    t = lx->funcs.data[i].ret;
    seen = true;
  }
  if (seen) return t;
  if (in_list(returns_float, sizeof returns_float / sizeof *returns_float, name))
    return scalar_type(KR_TY_FLOAT);
  if (strncmp(name, "make_", 5) == 0) return type_of_name(name + 5);
  if (strcmp(name, "isnan") == 0 || strcmp(name, "isinf") == 0 || strcmp(name, "isfinite") == 0 ||
      strcmp(name, "signbit") == 0)
    return scalar_type(KR_TY_INT);
  return overload_type(lx, name, field(call, "arguments"), depth);
}

static KrType member_type(KrLoops *lx, TSNode n, int depth) {
  KrType b = expr_type(lx, field(n, "argument"), depth + 1);
  bool arrow = is(lx, field(n, "operator"), "->");
  if (!b.vector || b.depth != (arrow ? 1 : 0)) return unknown_type();
  return scalar_type(b.cls);
}

static KrType expr_type(KrLoops *lx, TSNode n, int depth) {
  if (ts_node_is_null(n) || depth > MAX_DEPTH) return unknown_type();
  TSSymbol s = sym(n);
  const KrSyms *y = lx->s;
  if (s == y->number_literal) return literal_type(text(lx, n));
  if (s == lx->x.char_literal || s == lx->x.true_ || s == lx->x.false_)
    return scalar_type(KR_TY_INT);
  if (s == y->identifier) return name_type(lx, text(lx, n));
  if (s == y->parenthesized_expression)
    return ts_node_named_child_count(n) == 1 ? expr_type(lx, ts_node_named_child(n, 0), depth + 1)
                                             : unknown_type();
  if (s == y->field_expression) return member_type(lx, n, depth);
  if (s == y->subscript_expression) {
    KrType b = expr_type(lx, field(n, "argument"), depth + 1);
    if (b.depth == 0) return unknown_type();
    b.depth--;
    return b;
  }
  if (s == y->pointer_expression) {
    KrType b = expr_type(lx, field(n, "argument"), depth + 1);
    if (b.cls == KR_TY_UNKNOWN) return b;
    if (strcmp(op_of(lx, n), "&") == 0) b.depth++;
    else if (b.depth) b.depth--;
    else return unknown_type();
    return b;
  }
  if (s == y->cast_expression) return descriptor_type(lx, field(n, "type"));
  if (s == y->unary_expression) {
    if (strcmp(op_of(lx, n), "!") == 0) return scalar_type(KR_TY_INT);
    return promote(expr_type(lx, field(n, "argument"), depth + 1));
  }
  if (s == y->update_expression) return expr_type(lx, field(n, "argument"), depth + 1);
  if (s == y->binary_expression) {
    const char *op = op_of(lx, n);
    if (strchr("+-*/%&|^", op[0]) && (op[1] == 0)) return arith(lx, n, op, depth);
    if (strcmp(op, "<<") == 0 || strcmp(op, ">>") == 0)
      return promote(expr_type(lx, field(n, "left"), depth + 1));
    return scalar_type(KR_TY_INT); /* comparisons, && and || */
  }
  if (s == y->conditional_expression) {
    KrType a = expr_type(lx, field(n, "consequence"), depth + 1);
    KrType b = expr_type(lx, field(n, "alternative"), depth + 1);
    if (types_equal(a, b)) return a;
    return scalar_type(arith_class(promote(a).cls, promote(b).cls));
  }
  if (s == y->assignment_expression) return expr_type(lx, field(n, "left"), depth + 1);
  if (s == y->comma_expression) return expr_type(lx, field(n, "right"), depth + 1);
  if (s == y->sizeof_expression) return scalar_type(KR_TY_ULONG);
  if (s == y->call_expression) return call_type(lx, n, depth);
  return unknown_type();
}

KrType kr_loops_type(KrLoops *self, TSNode expr) { return expr_type(self, expr, 0); }

/* ==== Loop invariance ========================================================================== */

bool kr_names_has(const KrNameSet *self, const char *name) {
  for (size_t i = 0; i < self->names.len; i++)
    if (strcmp(self->names.data[i], name) == 0) return true;
  return false;
}

static void names_add(KrLoops *lx, KrNameSet *set, const char *name) {
  if (!kr_names_has(set, name)) kr_vec_push(lx->a, &set->names, name);
}

static void add_escaped(KrLoops *lx, KrNameSet *set) {
  for (size_t i = 0; i < lx->escaped.len; i++) names_add(lx, set, lx->escaped.data[i].name);
}

void kr_loops_varying(KrLoops *self, size_t index, KrNameSet *out) {
  memset(out, 0, sizeof *out);
  if (index >= self->k->loops.len) return;
  Events ev = {0};
  scan(self, self->k->loops.data[index].node, (Nest){0}, &ev, NULL, 0);
  for (size_t i = 0; i < ev.len; i++) names_add(self, out, ev.data[i].name);
  add_escaped(self, out);
}

/* A name whose value the kernel itself controls: a parameter, a local (not __shared__ or
 * volatile: other threads or hardware may change those), a template parameter, a file-scope
 * constant or a constant macro. */
static bool value_name(KrLoops *lx, const char *name, uint32_t at) {
  if (strcmp(name, "warpSize") == 0) return true;
  const Macro *m = NULL;
  if (macro_named(lx, name, &m)) {
    Val v;
    if (const_of_name(lx, name, at, &v)) return true;
    /* Defined more than once or under #if: invariant when every definition is a constant. */
    for (size_t i = 0; i < lx->macros.len; i++) {
      const Macro *d = &lx->macros.data[i];
      if (strcmp(d->name, name) != 0) continue;
      if (!d->body || !eval_text(lx, d->body, strlen(d->body), d->at + 1, &v)) return false;
    }
    return true;
  }
  bool seen = false;
  for (size_t i = 0; i < lx->decls.len; i++) {
    const Decl *d = &lx->decls.data[i];
    if (strcmp(d->name, name) != 0) continue;
    seen = true;
    if (!d->in_kernel && !d->is_const) return false;
    if (d->is_memory || strstr(d->type, "volatile") || d->is_ref) return false;
  }
  if (!seen) return false;
  /* __shared__ scalars are memory other threads write. */
  for (size_t i = 0; i < lx->k->shared.len; i++)
    if (strcmp(lx->k->shared.data[i].name, name) == 0) return false;
  return true;
}

static bool invariant(KrLoops *lx, TSNode n, const KrNameSet *varying, TSNode *culprit, int depth) {
  if (ts_node_is_null(n) || depth > MAX_DEPTH) return false;
  TSSymbol s = sym(n);
  const KrSyms *y = lx->s;
  bool ok = false;
  if (s == y->number_literal || s == lx->x.char_literal || s == lx->x.true_ || s == lx->x.false_ ||
      s == y->sizeof_expression || s == y->comment) {
    return true;
  } else if (s == y->identifier) {
    const char *name = text(lx, n);
    ok = !kr_names_has(varying, name) && value_name(lx, name, ts_node_start_byte(n));
  } else if (s == y->field_expression) {
    TSNode arg = field(n, "argument");
    if (!is(lx, field(n, "operator"), ".")) {
      ok = false;
    } else if (sym(arg) == y->identifier && is_builtin_index(text(lx, arg))) {
      return true;
    } else {
      return invariant(lx, arg, varying, culprit, depth + 1);
    }
  } else if (s == y->parenthesized_expression || s == y->binary_expression ||
             s == y->unary_expression || s == y->conditional_expression) {
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
      if (!invariant(lx, ts_node_named_child(n, i), varying, culprit, depth + 1)) return false;
    return k > 0;
  } else if (s == y->cast_expression) {
    return invariant(lx, field(n, "value"), varying, culprit, depth + 1);
  }
  if (!ok && culprit && ts_node_is_null(*culprit)) *culprit = n;
  return ok;
}

bool kr_loops_invariant(KrLoops *self, TSNode expr, const KrNameSet *varying, TSNode *culprit) {
  if (culprit) *culprit = (TSNode){0};
  return invariant(self, expr, varying, culprit, 0);
}

/* ==== Canonical loops and trip counts ========================================================== */

static const char *const cmp_text[] = {"<", "<=", ">", ">=", "!="};

static bool parse_cmp(const char *op, KrCmp *c) {
  for (int i = 0; i < 5; i++)
    if (strcmp(op, cmp_text[i]) == 0) {
      *c = (KrCmp)i;
      return true;
    }
  return false;
}

static KrCmp flip(KrCmp c) {
  switch (c) {
  case KR_CMP_LT: return KR_CMP_GT;
  case KR_CMP_LE: return KR_CMP_GE;
  case KR_CMP_GT: return KR_CMP_LT;
  case KR_CMP_GE: return KR_CMP_LE;
  default: return c;
  }
}

static bool mentions(KrLoops *lx, TSNode n, const char *name, int depth) {
  if (ts_node_is_null(n) || depth > MAX_DEPTH) return false;
  if (sym(n) == lx->s->identifier && is(lx, n, name)) return true;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (mentions(lx, ts_node_named_child(n, i), name, depth + 1)) return true;
  return false;
}

static void not_canonical(KrLoops *lx, KrLoopInfo *li, TSNode at, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

static void not_canonical(KrLoops *lx, KrLoopInfo *li, TSNode at, const char *fmt, ...) {
  if (!li->canonical) return; /* keep the first reason */
  va_list ap;
  va_start(ap, fmt);
  li->why = kr_arena_vprintf(lx->a, fmt, ap);
  va_end(ap);
  li->why_at = ts_node_start_byte(at);
  li->canonical = false;
}

static void read_init(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  TSNode init = field(loop, "initializer");
  if (ts_node_is_null(init)) {
    not_canonical(lx, li, loop, "the loop has no initializer");
    return;
  }
  if (sym(init) == lx->s->declaration) {
    TSNode d = field(init, "declarator");
    TSNode type = field(init, "type");
    uint32_t count = 0;
    for (uint32_t i = 0; i < ts_node_child_count(init); i++) {
      const char *f = ts_node_field_name_for_child(init, i);
      if (f && strcmp(f, "declarator") == 0) count++;
    }
    li->init_single = count == 1;
    if (ts_node_is_null(d) || sym(d) != lx->s->init_declarator ||
        sym(field(d, "declarator")) != lx->s->identifier) {
      not_canonical(lx, li, init, "the initializer '%s' does not give the variable a value",
                    flat(lx, init));
      return;
    }
    li->var = text(lx, field(d, "declarator"));
    li->init = field(d, "value");
    li->var_declared = true;
    li->var_type = ts_node_is_null(type) ? "" : flat(lx, type);
    if (!ts_node_is_null(type) && sym(type) == lx->x.placeholder_type_specifier)
      li->var_cls = promote(expr_type(lx, li->init, 0)).cls; /* auto i = 0 */
    else
      li->var_cls = type_of_name(li->var_type).cls;
    return;
  }
  if (sym(init) == lx->s->assignment_expression && strcmp(op_of(lx, init), "=") == 0 &&
      sym(field(init, "left")) == lx->s->identifier) {
    li->var = text(lx, field(init, "left"));
    li->init = field(init, "right");
    li->init_single = true;
    KrType t = name_type(lx, li->var);
    li->var_cls = t.depth || t.vector ? KR_TY_OTHER : t.cls;
    return;
  }
  not_canonical(lx, li, init, "the initializer '%s' does not set one induction variable",
                flat(lx, init));
}

static void read_cond(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  TSNode c = field(loop, "condition");
  if (ts_node_is_null(c)) {
    not_canonical(lx, li, loop, "the loop has no condition");
    return;
  }
  TSNode cs = strip_parens(lx, c);
  KrCmp cmp;
  if (sym(cs) != lx->s->binary_expression || !parse_cmp(op_of(lx, cs), &cmp)) {
    not_canonical(lx, li, c, "the condition '%s' is not a comparison of '%s' with a bound",
                  flat(lx, c), li->var);
    return;
  }
  TSNode l = field(cs, "left"), r = field(cs, "right");
  if (ident_is(lx, l, li->var)) {
    li->bound = r;
    li->cmp = cmp;
  } else if (ident_is(lx, r, li->var)) {
    li->bound = l;
    li->cmp = flip(cmp);
  } else {
    not_canonical(lx, li, c, "the condition '%s' does not compare '%s' itself with a bound",
                  flat(lx, c), li->var);
    return;
  }
  if (mentions(lx, li->bound, li->var, 0))
    not_canonical(lx, li, c, "the bound in '%s' depends on '%s'", flat(lx, c), li->var);
}

/* The stride of the update: ++/-- (no node), or C in `i += C`, `i -= C`, `i = i ± C`, `i = C + i`;
 * *sign is −1 when C is subtracted. */
static bool read_update(KrLoops *lx, KrLoopInfo *li, TSNode u, int *sign) {
  const char *v = li->var;
  *sign = 1;
  if (sym(u) == lx->s->update_expression && ident_is(lx, field(u, "argument"), v)) {
    *sign = strcmp(op_of(lx, u), "--") == 0 ? -1 : 1;
    return true;
  }
  if (sym(u) != lx->s->assignment_expression || !ident_is(lx, field(u, "left"), v)) return false;
  const char *op = op_of(lx, u);
  TSNode r = field(u, "right");
  if (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0) {
    li->stride = r;
    *sign = op[0] == '-' ? -1 : 1;
  } else if (strcmp(op, "=") == 0) {
    TSNode rs = strip_parens(lx, r);
    if (sym(rs) != lx->s->binary_expression) return false;
    const char *bop = op_of(lx, rs);
    TSNode a = field(rs, "left"), b = field(rs, "right");
    if (strcmp(bop, "+") == 0 && ident_is(lx, a, v)) li->stride = b;
    else if (strcmp(bop, "+") == 0 && ident_is(lx, b, v)) li->stride = a;
    else if (strcmp(bop, "-") == 0 && ident_is(lx, a, v)) {
      li->stride = b;
      *sign = -1;
    } else {
      return false;
    }
  } else {
    return false;
  }
  return !mentions(lx, li->stride, v, 0);
}

static void read_step(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  TSNode u = field(loop, "update");
  int sign;
  if (ts_node_is_null(u)) {
    not_canonical(lx, li, loop, "the loop has no update");
    return;
  }
  if (!read_update(lx, li, u, &sign)) {
    not_canonical(lx, li, u, "the update '%s' does not step '%s' by a fixed stride", flat(lx, u),
                  li->var);
    return;
  }
  long long c = 1;
  li->stride_const = ts_node_is_null(li->stride) || kr_loops_const(lx, li->stride, &c);
  if (li->stride_const) {
    if (c == 0 || c == LLONG_MIN) {
      not_canonical(lx, li, u, "the update '%s' has stride 0", flat(lx, u));
      return;
    }
    li->stride_v = sign * c;
    li->dir = li->stride_v > 0 ? 1 : -1;
  } else {
    li->dir = sign;
  }
}

static void check_direction(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  bool up = li->cmp == KR_CMP_LT || li->cmp == KR_CMP_LE;
  bool down = li->cmp == KR_CMP_GT || li->cmp == KR_CMP_GE;
  if ((up && li->dir < 0) || (down && li->dir > 0))
    not_canonical(lx, li, field(loop, "update"),
                  "'%s' %s while the condition '%s' needs it to %s; the loop runs zero times or "
                  "never ends",
                  li->var, li->dir > 0 ? "increases" : "decreases",
                  flat(lx, field(loop, "condition")), up ? "increase" : "decrease");
}

static const char *paren(KrLoops *lx, TSNode n) {
  TSSymbol s = sym(n);
  const KrSyms *y = lx->s;
  const char *t = flat(lx, n);
  if (s == y->identifier || s == y->number_literal || s == y->field_expression ||
      s == y->call_expression || s == y->subscript_expression || s == y->parenthesized_expression)
    return t;
  return kr_arena_printf(lx->a, "(%s)", t);
}

static void symbolic_trip(KrLoops *lx, KrLoopInfo *li) {
  const char *a = paren(lx, li->init), *b = paren(lx, li->bound);
  const char *lo = li->dir > 0 ? a : b, *hi = li->dir > 0 ? b : a;
  const char *diff = strcmp(lo, "0") == 0 ? hi : kr_arena_printf(lx->a, "%s - %s", hi, lo);
  long long m = li->stride_v < 0 ? -li->stride_v : li->stride_v;
  const char *s = li->stride_const ? kr_arena_printf(lx->a, "%lld", m) : paren(lx, li->stride);
  bool one = li->stride_const && m == 1;
  switch (li->cmp) {
  case KR_CMP_LT:
  case KR_CMP_GT:
    if (one) li->trip_text = diff;
    else if (li->stride_const)
      li->trip_text = kr_arena_printf(lx->a, "(%s + %lld) / %lld", diff, m - 1, m);
    else
      li->trip_text = kr_arena_printf(lx->a, "(%s + %s - 1) / %s", diff, s, s);
    break;
  case KR_CMP_LE:
  case KR_CMP_GE:
    li->trip_text = one ? kr_arena_printf(lx->a, "%s + 1", diff)
                        : kr_arena_printf(lx->a, "(%s) / %s + 1", diff, s);
    break;
  case KR_CMP_NE:
    li->trip_text = one ? diff : kr_arena_printf(lx->a, "(%s) / %s", diff, s);
    break;
  }
  li->trip_kind = KR_TRIP_SYMBOLIC;
}

static bool in_range(KrTyClass c, long long v) {
  switch (c) {
  case KR_TY_INT: return v >= INT_MIN && v <= INT_MAX;
  case KR_TY_UINT: return v >= 0 && v <= (long long)UINT_MAX;
  case KR_TY_ULONG: return v >= 0;
  default: return true;
  }
}

static void trip_unknown(KrLoopInfo *li, uint32_t at, const char *why) {
  li->trip_kind = KR_TRIP_UNKNOWN;
  li->trip_why = why;
  li->trip_why_at = at;
}

static void const_trip(KrLoops *lx, KrLoopInfo *li) {
  long long a = li->init_v, b = li->bound_v, s = li->stride_v, m = s < 0 ? -s : s, n = 0, d;
  uint32_t at = ts_node_start_byte(li->loop->node);
  if (!in_range(li->var_cls, a) || !in_range(li->var_cls, b)) {
    trip_unknown(li, at, kr_arena_printf(lx->a, "the start %lld or the bound %lld is outside "
                                                    "the range of '%s'", a, b, li->var));
    return;
  }
  if (__builtin_sub_overflow(li->dir > 0 ? b : a, li->dir > 0 ? a : b, &d)) {
    trip_unknown(li, at, "the distance from the start to the bound overflows");
    return;
  }
  switch (li->cmp) {
  case KR_CMP_LT:
  case KR_CMP_GT: n = d > 0 ? d / m + (d % m != 0) : 0; break;
  case KR_CMP_LE:
  case KR_CMP_GE: n = d >= 0 ? d / m + 1 : 0; break;
  case KR_CMP_NE:
    if (d < 0 || d % m != 0) {
      trip_unknown(li, at, kr_arena_printf(lx->a, "'%s' steps over the bound %lld, so the "
                                                      "condition '!=' never becomes false",
                                               li->var, b));
      return;
    }
    n = d / m;
    break;
  }
  long long last;
  if (__builtin_mul_overflow(n, s, &last) || __builtin_add_overflow(a, last, &last) ||
      !in_range(li->var_cls, last)) {
    trip_unknown(li, at, kr_arena_printf(lx->a, "'%s' would overflow its type before the "
                                                    "condition becomes false", li->var));
    return;
  }
  li->trip_kind = KR_TRIP_CONST;
  li->trip = n;
  li->trip_text = kr_arena_printf(lx->a, "%lld", n);
}

static void trip_count(KrLoops *lx, KrLoopInfo *li, const Events *body) {
  /* The bound and a symbolic stride are evaluated every iteration: they must not change. */
  KrNameSet assigned = {0};
  for (size_t i = 0; i < body->len; i++)
    if (!body->data[i].is_decl) names_add(lx, &assigned, body->data[i].name);
  add_escaped(lx, &assigned);
  TSNode parts[2] = {li->bound, li->stride};
  const char *role[2] = {"bound", "stride"};
  for (int i = 0; i < 2; i++) {
    TSNode culprit;
    if (ts_node_is_null(parts[i]) || kr_loops_invariant(lx, parts[i], &assigned, &culprit))
      continue;
    trip_unknown(li, ts_node_start_byte(culprit),
                 kr_arena_printf(lx->a, "the %s '%s' may change while the loop runs ('%s' at %s)",
                                 role[i], flat(lx, parts[i]), flat(lx, culprit),
                                 pos(lx, ts_node_start_byte(culprit))));
    return;
  }
  li->init_const = kr_loops_const(lx, li->init, &li->init_v);
  li->bound_const = kr_loops_const(lx, li->bound, &li->bound_v);
  if (li->init_const && li->bound_const && li->stride_const) const_trip(lx, li);
  else symbolic_trip(lx, li);
}

/* The declaration the induction variable refers to: the initializer's own, or (for `i = 0`) the
 * one the initializer's assignment resolves to. */
static KrBinding var_binding(KrLoops *lx, const KrLoopInfo *li) {
  KrBinding b = {.kind = KR_BIND_NONE, .param = -1};
  TSNode init = field(li->loop->node, "initializer");
  if (ts_node_is_null(init)) return b;
  if (sym(init) == lx->s->declaration) {
    b.kind = KR_BIND_LOCAL;
    b.decl = init;
    b.name = kr_declarator_name(lx->t, field(init, "declarator"));
    return b;
  }
  TSNode id = lvalue_id(lx, field(init, "left"));
  return ts_node_is_null(id) ? b : kr_resolve(lx->t, lx->k, id);
}

static void body_facts(KrLoops *lx, KrLoopInfo *li, TSNode body, Events *ev) {
  Exits ex = {0};
  scan(lx, body, (Nest){0}, ev, &ex, 0);
  li->brk = ex.brk;
  li->cont = ex.cont;
  li->ret = ex.ret;
  li->jump = ex.jump;
  if (!li->var) return;
  for (size_t i = 0; i < ev->len; i++) {
    const Event *e = &ev->data[i];
    if (strcmp(e->name, li->var) != 0) continue;
    li->var_modified = where(lx, e->at, kr_arena_printf(lx->a, "'%s' is %s", li->var,
                                                        e->is_decl ? "redeclared" : e->what));
    return;
  }
  /* Aliases made elsewhere in the kernel count when they are of this very variable (another
   * loop's `i` is another variable); an alias whose target cannot be resolved counts. */
  KrBinding self = var_binding(lx, li);
  for (size_t i = 0; i < lx->escaped.len; i++) {
    const Event *e = &lx->escaped.data[i];
    if (strcmp(e->name, li->var) != 0) continue;
    KrBinding b = ts_node_is_null(e->id) ? (KrBinding){.kind = KR_BIND_NONE}
                                         : kr_resolve(lx->t, lx->k, e->id);
    if (self.kind != KR_BIND_NONE && b.kind != KR_BIND_NONE && !kr_binding_same(self, b)) continue;
    {
      li->var_modified = where(lx, e->at, kr_arena_printf(lx->a, "'%s' %s", li->var, e->what));
      return;
    }
  }
}

static void analyze(KrLoops *lx, size_t index, KrLoopInfo *li) {
  const KrLoop *loop = &lx->k->loops.data[index];
  static const char *const kinds[] = {"a for", "a while", "a do-while", "a range-for"};
  TSNode n = loop->node, body = field(n, "body");
  li->loop = loop;
  li->canonical = true;
  li->trip_kind = KR_TRIP_UNKNOWN;
  if (loop->kind == KR_LOOP_FOR) read_init(lx, li, n);
  else not_canonical(lx, li, n, "%s loop has no induction variable", kinds[loop->kind]);
  Events ev = {0};
  if (!ts_node_is_null(body)) body_facts(lx, li, body, &ev);
  if (li->canonical) read_cond(lx, li, n);
  if (li->canonical) read_step(lx, li, n);
  if (li->canonical && !kr_ty_is_integer(li->var_cls))
    not_canonical(lx, li, n, li->var_cls == KR_TY_UNKNOWN
                               ? "the type of the induction variable '%s' is not known"
                               : "the induction variable '%s' is not an integer",
                  li->var);
  if (li->canonical) check_direction(lx, li, n);
  if (!li->canonical) {
    trip_unknown(li, li->why_at, li->why);
    return;
  }
  if (li->var_modified.found) {
    trip_unknown(li, li->var_modified.at, li->var_modified.what);
    return;
  }
  trip_count(lx, li, &ev);
}

const KrLoopInfo *kr_loops_info(KrLoops *self, size_t index) {
  if (index >= self->k->loops.len) return NULL;
  if (!self->infos[index]) {
    KrLoopInfo *li = kr_arena_alloc(self->a, sizeof *li);
    analyze(self, index, li);
    self->infos[index] = li;
  }
  return self->infos[index];
}

/* ==== Where text can go ======================================================================== */

static bool blank_line(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  return p == end;
}

static bool pragma_line(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  return end - p >= 7 && strncmp(p, "#pragma", 7) == 0;
}

uint32_t kr_loops_head(KrLoops *self, size_t index, bool *own_line) {
  const KrSource *src = self->t->src;
  TSNode n = self->k->loops.data[index].node;
  uint32_t start = ts_node_start_byte(n);
  uint32_t line = kr_source_line_of(src, start);
  *own_line = blank_line(src->text + src->line_starts[line], src->text + start);
  if (!*own_line) return start;
  uint32_t head = src->line_starts[line];
  while (line > 0) {
    line--;
    const char *s = src->text + src->line_starts[line];
    const char *e = src->text + src->line_starts[line + 1];
    if (blank_line(s, e)) continue;
    if (!pragma_line(s, e)) break;
    head = src->line_starts[line];
  }
  return head;
}

bool kr_loops_in_block(KrLoops *self, size_t index) {
  TSNode parent = ts_node_parent(self->k->loops.data[index].node);
  return !ts_node_is_null(parent) && sym(parent) == self->s->compound_statement;
}

bool kr_loops_is_macro(KrLoops *self, const char *name) {
  const Macro *m;
  return macro_named(self, name, &m);
}

bool kr_loops_name_used(KrLoops *self, const char *name) {
  const char *t = self->t->src->text;
  size_t n = strlen(name);
  for (const char *p = strstr(t, name); p; p = strstr(p + 1, name)) {
    if ((p == t || !ident_char(p[-1])) && !ident_char(p[n])) return true;
  }
  return false;
}
