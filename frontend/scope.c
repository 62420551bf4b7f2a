/* frontend/scope.c: name resolution inside a kernel and the declaration table of what it can see
 * (scope.h). Resolution walks up from the identifier through the enclosing scopes; the table is
 * one walk over the whole file, collecting macros, #undefs, file-scope variables and functions,
 * and every declaration of the kernel. */
#include "frontend/scope.h"

#include <string.h>

#define MAX_DEPTH 400   /* tree depth beyond which walks stop (pathological input only) */

static TSSymbol sym(TSNode n) { return ts_node_symbol(n); }
static char *text(KrScope *sc, TSNode n) { return kr_node_text(sc->t, n, sc->a); }
static bool is(KrScope *sc, TSNode n, const char *s) { return kr_node_text_is(sc->t, n, s); }

static char *flat(KrScope *sc, TSNode n) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return kr_text_fold(sc->a, sc->t->src->text + s, e - s);
}

/* ==== Name resolution ========================================================================== */

TSNode kr_declarator_name(const KrTree *tree, TSNode d) {
  for (int guard = 0; guard < 32 && !ts_node_is_null(d); guard++) {
    if (ts_node_symbol(d) == tree->sym.identifier) return d;
    TSNode next = ts_node_child_by_field_name(d, "declarator", 10);
    if (ts_node_is_null(next)) {
      /* reference_declarator and parenthesized declarators have no field: the one declarator
       * among their named children is the way down. */
      uint32_t n = ts_node_named_child_count(d);
      TSNode pick = {0};
      for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(d, i);
        TSSymbol s = ts_node_symbol(c);
        if (s == tree->sym.type_qualifier || s == tree->sym.attribute_specifier ||
            s == tree->sym.comment)
          continue;
        pick = c;
        break;
      }
      next = pick;
    }
    d = next;
  }
  TSNode none = {0};
  return none;
}

static bool name_is(const KrTree *t, TSNode id, const char *name, size_t len) {
  uint32_t s = ts_node_start_byte(id), e = ts_node_end_byte(id);
  return e - s == len && memcmp(t->src->text + s, name, len) == 0;
}

/* Does declaration `decl` declare `name`? Fills the binding's name and initializer. */
bool kr_declaration_declares(const KrTree *t, TSNode decl, const char *name, size_t len,
                             KrBinding *b) {
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (!f || strcmp(f, "declarator") != 0) continue;
    TSNode d = ts_node_child(decl, i);
    TSNode value = {0};
    if (ts_node_symbol(d) == t->sym.init_declarator)
      value = ts_node_child_by_field_name(d, "value", 5);
    TSNode id = kr_declarator_name(t, d);
    if (!ts_node_is_null(id) && name_is(t, id, name, len)) {
      b->decl = decl;
      b->name = id;
      b->value = value;
      return true;
    }
  }
  return false;
}

/* Parameters of a lambda (its abstract_function_declarator's parameter_list). */
static bool lambda_declares(const KrTree *t, TSNode lambda, const char *name, size_t len,
                            KrBinding *b) {
  TSNode d = ts_node_child_by_field_name(lambda, "declarator", 10);
  if (ts_node_is_null(d)) return false;
  TSNode list = ts_node_child_by_field_name(d, "parameters", 10);
  if (ts_node_is_null(list)) return false;
  for (uint32_t i = 0; i < ts_node_named_child_count(list); i++) {
    TSNode pd = ts_node_named_child(list, i);
    TSNode id = kr_declarator_name(t, ts_node_child_by_field_name(pd, "declarator", 10));
    if (!ts_node_is_null(id) && name_is(t, id, name, len)) {
      b->decl = pd;
      b->name = id;
      return true;
    }
  }
  return false;
}

/* A declaration in scope at `n` among the statements of `p` that come before `n`. */
static bool scope_declares(const KrTree *t, TSNode p, TSNode n, const char *name, size_t len,
                           KrBinding *b) {
  const KrSyms *s = &t->sym;
  TSSymbol ps = ts_node_symbol(p);
  uint32_t at = ts_node_start_byte(n);
  if (ps == s->compound_statement) {
    bool found = false;
    for (uint32_t i = 0; i < ts_node_named_child_count(p); i++) {
      TSNode c = ts_node_named_child(p, i);
      if (ts_node_start_byte(c) >= at) break;
      if (ts_node_symbol(c) == s->declaration && kr_declaration_declares(t, c, name, len, b))
        found = true;
    }
    return found;
  }
  if (ps == s->for_statement) {
    TSNode init = ts_node_child_by_field_name(p, "initializer", 11);
    return !ts_node_is_null(init) && !ts_node_eq(init, n) &&
           ts_node_symbol(init) == s->declaration && kr_declaration_declares(t, init, name, len, b);
  }
  if (ps == s->for_range_loop) {
    TSNode body = ts_node_child_by_field_name(p, "body", 4);
    TSNode id = kr_declarator_name(t, ts_node_child_by_field_name(p, "declarator", 10));
    if (!ts_node_is_null(body) && ts_node_eq(body, n) && !ts_node_is_null(id) &&
        name_is(t, id, name, len)) {
      b->decl = p;
      b->name = id;
      return true;
    }
    return false;
  }
  if (ps == s->condition_clause) {
    TSNode v = ts_node_child_by_field_name(p, "value", 5);
    return !ts_node_is_null(v) && !ts_node_eq(v, n) && ts_node_symbol(v) == s->declaration &&
           kr_declaration_declares(t, v, name, len, b);
  }
  if (ps == s->if_statement || ps == s->while_statement) {
    TSNode c = ts_node_child_by_field_name(p, "condition", 9);
    if (ts_node_is_null(c) || ts_node_eq(c, n) || ts_node_symbol(c) != s->condition_clause)
      return false;
    TSNode v = ts_node_child_by_field_name(c, "value", 5);
    return !ts_node_is_null(v) && ts_node_symbol(v) == s->declaration &&
           kr_declaration_declares(t, v, name, len, b);
  }
  return false;
}

KrBinding kr_resolve(const KrTree *t, const KrKernel *k, TSNode id) {
  KrBinding b = {.kind = KR_BIND_NONE, .param = -1};
  const char *name = t->src->text + ts_node_start_byte(id);
  size_t len = ts_node_end_byte(id) - ts_node_start_byte(id);
  TSNode n = id;
  for (;;) {
    TSNode p = ts_node_parent(n);
    if (ts_node_is_null(p) || ts_node_eq(p, k->node)) break;
    if (ts_node_symbol(p) == t->sym.lambda_expression && lambda_declares(t, p, name, len, &b)) {
      b.kind = KR_BIND_LAMBDA;
      return b;
    }
    if (scope_declares(t, p, n, name, len, &b)) {
      b.kind = KR_BIND_LOCAL;
      return b;
    }
    n = p;
  }
  for (size_t i = 0; i < k->params.len; i++) {
    const KrParam *pa = &k->params.data[i];
    if (strlen(pa->name) != len || memcmp(pa->name, name, len) != 0) continue;
    b.kind = KR_BIND_PARAM;
    b.decl = pa->node;
    b.name = kr_declarator_name(t, ts_node_child_by_field_name(pa->node, "declarator", 10));
    b.param = (int)i;
    return b;
  }
  return b;
}

bool kr_binding_same(KrBinding a, KrBinding b) {
  if (a.kind != b.kind || a.kind == KR_BIND_NONE) return false;
  return ts_node_eq(a.name, b.name);
}


/* ==== Collecting declarations, macros and functions ============================================ */

static bool has_word(KrScope *sc, TSNode decl, const char *word) {
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_child(decl, i);
    TSSymbol s = sym(c);
    if ((s == sc->t->sym.type_qualifier || s == sc->t->sym.storage_class_specifier) &&
        is(sc, c, word))
      return true;
  }
  return false;
}

/* Follows a declarator down to its name, counting pointer/array levels. */
static TSNode declarator_name(KrScope *sc, TSNode d, int *depth, bool *is_ref, TSNode *value) {
  for (int guard = 0; !ts_node_is_null(d) && guard < 64; guard++) {
    TSSymbol s = sym(d);
    if (s == sc->t->sym.identifier || s == sc->t->sym.field_identifier) return d;
    if (s == sc->t->sym.init_declarator) {
      if (value) *value = kr_node_field(d, "value");
    } else if (s == sc->t->sym.pointer_declarator || s == sc->t->sym.array_declarator) {
      (*depth)++;
    } else if (s == sc->t->sym.reference_declarator) {
      *is_ref = true;
      d = ts_node_named_child(d, 0);
      continue;
    } else if (s != sc->t->sym.parenthesized_declarator && s != sc->t->sym.attribute_specifier) {
      return (TSNode){0};
    }
    TSNode next = kr_node_field(d, "declarator");
    d = ts_node_is_null(next) ? ts_node_named_child(d, 0) : next;
  }
  return (TSNode){0};
}

static void add_decl(KrScope *sc, TSNode decl, TSNode d, bool in_kernel) {
  KrDecl x = {.in_kernel = in_kernel};
  int depth = 0;
  TSNode name = declarator_name(sc, d, &depth, &x.is_ref, &x.value);
  if (ts_node_is_null(name)) return;
  TSNode type = kr_node_field(decl, "type");
  x.name = text(sc, name);
  x.type = ts_node_is_null(type) ? "" : flat(sc, type);
  x.ty = kr_type_of_name(x.type);
  if (x.ty.cls != KR_TY_UNKNOWN) x.ty.depth = depth;
  x.is_const = depth == 0 && (has_word(sc, decl, "const") || has_word(sc, decl, "constexpr"));
  x.is_memory = has_word(sc, decl, "static") || has_word(sc, decl, "__shared__") ||
                has_word(sc, decl, "volatile") || has_word(sc, decl, "extern");
  x.at = ts_node_start_byte(decl);
  kr_vec_push(sc->a, &sc->decls, x);
}

/* Every declarator of a declaration (or parameter declaration). */
static void add_declarators(KrScope *sc, TSNode decl, bool in_kernel) {
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (f && strcmp(f, "declarator") == 0) add_decl(sc, decl, ts_node_child(decl, i), in_kernel);
  }
}

static void add_func(KrScope *sc, TSNode def) {
  TSNode d = kr_node_field(def, "declarator");
  int depth = 0;
  while (!ts_node_is_null(d) && sym(d) != sc->t->sym.function_declarator) {
    if (sym(d) == sc->t->sym.pointer_declarator) depth++;
    TSNode next = kr_node_field(d, "declarator");
    d = ts_node_is_null(next) ? ts_node_named_child(d, 0) : next;
  }
  if (ts_node_is_null(d)) return;
  TSNode name = kr_node_field(d, "declarator");
  if (ts_node_is_null(name) || sym(name) != sc->t->sym.identifier) return;
  KrFunc f = {.name = text(sc, name), .params = kr_node_field(d, "parameters")};
  TSNode type = kr_node_field(def, "type");
  f.ret = kr_type_of_name(ts_node_is_null(type) ? "" : flat(sc, type));
  if (f.ret.cls != KR_TY_UNKNOWN) f.ret.depth = depth;
  kr_vec_push(sc->a, &sc->funcs, f);
}

static bool declares_function(KrScope *sc, TSNode decl) {
  TSNode d = kr_node_field(decl, "declarator");
  for (int g = 0; !ts_node_is_null(d) && g < 16; g++) {
    if (sym(d) == sc->t->sym.function_declarator) return true;
    TSNode next = kr_node_field(d, "declarator");
    d = next;
  }
  return false;
}

static void add_macro(KrScope *sc, TSNode n, bool conditional) {
  TSNode name = kr_node_field(n, "name");
  if (ts_node_is_null(name)) return;
  KrMacro m = {.name = text(sc, name), .at = ts_node_start_byte(n), .conditional = conditional};
  if (sym(n) == sc->t->sym.preproc_def) {
    TSNode v = kr_node_field(n, "value");
    m.body = ts_node_is_null(v) ? "" : text(sc, v);
  }
  kr_vec_push(sc->a, &sc->macros, m);
}

static void add_undef(KrScope *sc, TSNode n) {
  TSNode dir = kr_node_field(n, "directive");
  TSNode arg = kr_node_field(n, "argument");
  if (ts_node_is_null(dir) || ts_node_is_null(arg) || !is(sc, dir, "#undef")) return;
  kr_vec_push(sc->a, &sc->undefs, kr_text_fold(sc->a, text(sc, arg), strlen(text(sc, arg))));
}

static void add_template_params(KrScope *sc, TSNode list) {
  uint32_t n = ts_node_named_child_count(list);
  for (uint32_t i = 0; i < n; i++) {
    TSNode p = ts_node_named_child(list, i);
    TSSymbol s = sym(p);
    if (s == sc->t->sym.parameter_declaration || s == sc->t->sym.optional_parameter_declaration) {
      size_t before = sc->decls.len;
      add_declarators(sc, p, true);
      for (size_t j = before; j < sc->decls.len; j++) {
        sc->decls.data[j].is_template = true;
        sc->decls.data[j].value = (TSNode){0};
      }
    } else if (s == sc->t->sym.type_parameter_declaration ||
               s == sc->t->sym.optional_type_parameter_declaration ||
               s == sc->t->sym.variadic_type_parameter_declaration) {
      for (uint32_t j = 0; j < ts_node_named_child_count(p); j++) {
        TSNode c = ts_node_named_child(p, j);
        if (sym(c) == sc->t->sym.type_identifier) kr_vec_push(sc->a, &sc->type_params, text(sc, c));
      }
    }
  }
}

/* One walk over the whole file: macros and #undefs anywhere; file-scope variables and functions
 * outside function bodies; every declaration inside the kernel. */
static void collect(KrScope *sc, TSNode n, bool in_fn, bool in_kernel, bool cond, int depth) {
  if (depth > MAX_DEPTH) return;
  TSSymbol s = sym(n);
  if (s == sc->t->sym.preproc_def || s == sc->t->sym.preproc_function_def) {
    add_macro(sc, n, cond);
    return;
  }
  if (s == sc->t->sym.preproc_call) {
    add_undef(sc, n);
    return;
  }
  if (s == sc->t->sym.preproc_if || s == sc->t->sym.preproc_ifdef || s == sc->t->sym.preproc_else ||
      s == sc->t->sym.preproc_elif)
    cond = true;
  if (s == sc->t->sym.function_definition) {
    if (!in_fn) add_func(sc, n);
    if (ts_node_eq(n, sc->k->node)) in_kernel = true;
    in_fn = true;
  } else if (s == sc->t->sym.declaration && (in_kernel || !in_fn)) {
    if (!in_fn && declares_function(sc, n)) add_func(sc, n);
    else add_declarators(sc, n, in_kernel);
  } else if (s == sc->t->sym.parameter_declaration && in_kernel) {
    add_declarators(sc, n, true); /* lambda parameters: they shadow, so they count */
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    collect(sc, ts_node_named_child(n, i), in_fn, in_kernel, cond, depth + 1);
}

static void add_kernel_params(KrScope *sc) {
  for (size_t i = 0; i < sc->k->params.len; i++) {
    const KrParam *p = &sc->k->params.data[i];
    if (!*p->name) continue;
    KrDecl x = {.name = p->name, .type = p->base, .in_kernel = true, .is_param = true,
              .is_ref = p->is_reference, .at = p->span.start};
    x.ty = kr_type_of_name(p->base);
    if (x.ty.cls != KR_TY_UNKNOWN) x.ty.depth = p->pointer_depth;
    kr_vec_push(sc->a, &sc->decls, x);
  }
  TSNode parent = ts_node_parent(sc->k->node);
  if (!ts_node_is_null(parent) && sym(parent) == sc->t->sym.template_declaration) {
    TSNode list = kr_node_field(parent, "parameters");
    if (!ts_node_is_null(list)) add_template_params(sc, list);
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

static bool in_list(const char *const *list, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return true;
  return false;
}

/* Does parameter `i` of this parameter list take its argument by non-const reference (or is the
 * list variadic past it)? */
static bool param_by_ref(KrScope *sc, TSNode list, uint32_t i) {
  if (ts_node_is_null(list)) return true;
  uint32_t n = ts_node_named_child_count(list), k = 0;
  for (uint32_t j = 0; j < n; j++) {
    TSNode p = ts_node_named_child(list, j);
    TSSymbol s = sym(p);
    if (s == sc->t->sym.variadic_parameter_declaration) return true;
    if (s != sc->t->sym.parameter_declaration && s != sc->t->sym.optional_parameter_declaration)
      continue;
    if (k++ != i) continue;
    int depth = 0;
    bool ref = false;
    declarator_name(sc, kr_node_field(p, "declarator"), &depth, &ref, NULL);
    if (!ref) {
      /* An unnamed reference parameter: `int &` */
      TSNode d = kr_node_field(p, "declarator");
      ref = !ts_node_is_null(d) && strchr(text(sc, d), '&') != NULL;
    }
    return ref && !has_word(sc, p, "const");
  }
  return false;
}

/* Could this call modify a variable passed as its argument number `i`? Unknown callees could. */
bool kr_scope_call_may_modify(KrScope *sc, TSNode call, uint32_t i, const char **callee) {
  const char *name = kr_node_callee(sc->t, call, sc->a);
  *callee = name;
  if (!name) {
    TSNode f = kr_node_field(call, "function");
    /* the callee as written (`tile32.shfl_down`, `(*fp)`), short, for the refusal to name it */
    const char *w = ts_node_is_null(f) ? NULL : text(sc, f);
    size_t wl = w ? strcspn(w, "\n") : 0;
    *callee = !w || !*w ? "a function expression"
              : wl > 48 ? kr_arena_printf(sc->a, "%.45s...", w) : kr_arena_strndup(sc->a, w, wl);
    /* Functional casts such as float(x) and make_float4-style constructors take values. */
    if (!ts_node_is_null(f) && (sym(f) == sc->t->sym.primitive_type)) return false;
    return true;
  }
  bool known = false;
  for (size_t k = 0; k < sc->funcs.len; k++) {
    if (strcmp(sc->funcs.data[k].name, name) != 0) continue;
    known = true;
    if (param_by_ref(sc, sc->funcs.data[k].params, i)) return true;
  }
  if (known) return false;
  if (strncmp(name, "__", 2) == 0 || strncmp(name, "atomic", 6) == 0 ||
      strncmp(name, "make_", 5) == 0 || strcmp(name, "static_cast") == 0 ||
      strcmp(name, "reinterpret_cast") == 0)
    return false;
  return !in_list(by_value, sizeof by_value / sizeof *by_value, name);
}


/* ==== Construction and questions =============================================================== */

KrScope *kr_scope_new(const KrTree *tree, const KrKernel *kernel, KrArena *arena) {
  KrScope *sc = kr_arena_alloc(arena, sizeof *sc);
  memset(sc, 0, sizeof *sc);
  sc->t = tree;
  sc->k = kernel;
  sc->a = arena;
  add_kernel_params(sc);
  collect(sc, kr_tree_root(tree), false, false, false, 0);
  return sc;
}

const KrDecl *kr_scope_lookup(KrScope *self, const char *name) {
  const KrDecl *d = NULL;
  for (size_t i = 0; i < self->decls.len; i++) {
    if (strcmp(self->decls.data[i].name, name) != 0) continue;
    /* Kernel parameters are in the table twice (from the model and from the walk), at the same
     * place; anything else declared twice is ambiguous: which one is meant depends on scope. */
    if (d && d->at != self->decls.data[i].at) return NULL;
    if (d) continue;
    d = &self->decls.data[i];
  }
  return d;
}

bool kr_scope_macro(KrScope *self, const char *name, const KrMacro **out) {
  size_t count = 0;
  for (size_t i = 0; i < self->macros.len; i++)
    if (strcmp(self->macros.data[i].name, name) == 0) {
      *out = &self->macros.data[i];
      count++;
    }
  if (count > 1) *out = NULL;
  return count > 0;
}

bool kr_scope_undefined(KrScope *self, const char *name) {
  for (size_t i = 0; i < self->undefs.len; i++)
    if (strcmp(self->undefs.data[i], name) == 0) return true;
  return false;
}

bool kr_scope_is_macro(KrScope *self, const char *name) {
  const KrMacro *m;
  return kr_scope_macro(self, name, &m);
}

bool kr_scope_name_used(KrScope *self, const char *name) {
  const char *t = self->t->src->text;
  size_t n = strlen(name);
  for (const char *p = strstr(t, name); p; p = strstr(p + 1, name)) {
    if ((p == t || !kr_ident_char(p[-1])) && !kr_ident_char(p[n])) return true;
  }
  return false;
}

/* Could a name written at bytes [s, e) meet a name the kernel declares? Not inside a comment or
 * a string literal, nor inside the body of another function: locals there are out of the
 * kernel's reach, and a global used there is declared outside every body as well. A macro
 * defined there is in reach, since the preprocessor knows no scopes. */
static bool in_reach(KrScope *self, uint32_t s, uint32_t e) {
  TSNode n = ts_node_descendant_for_byte_range(kr_tree_root(self->t), s, e);
  for (int up = 0; up < 4 && !ts_node_is_null(n); up++, n = ts_node_parent(n)) {
    if (ts_node_symbol(n) == self->t->sym.comment) return false;
    const char *type = ts_node_type(n);
    if (strcmp(type, "string_literal") == 0 || strcmp(type, "raw_string_literal") == 0 ||
        strcmp(type, "char_literal") == 0)
      return false;
  }
  for (; !ts_node_is_null(n); n = ts_node_parent(n)) {
    TSSymbol sym = ts_node_symbol(n);
    /* A #define counts wherever it stands (before or after the kernel: erring on the safe
     * side). */
    if (sym == self->t->sym.preproc_def || sym == self->t->sym.preproc_function_def) return true;
    if (sym != self->t->sym.function_definition || ts_node_eq(n, self->k->node)) continue;
    TSNode body = kr_node_field(n, "body");
    if (!ts_node_is_null(body) && ts_node_start_byte(body) <= s && e <= ts_node_end_byte(body))
      return false;
  }
  return true;
}

bool kr_scope_name_in_code(KrScope *self, const char *name) {
  const char *t = self->t->src->text;
  size_t n = strlen(name);
  for (const char *p = strstr(t, name); p; p = strstr(p + 1, name)) {
    if ((p != t && kr_ident_char(p[-1])) || kr_ident_char(p[n])) continue;
    uint32_t at = (uint32_t)(p - t);
    if (in_reach(self, at, at + (uint32_t)n)) return true;
  }
  return false;
}

TSNode kr_scope_declarator(KrScope *self, TSNode d, int *depth, bool *is_ref, TSNode *value) {
  return declarator_name(self, d, depth, is_ref, value);
}

bool kr_scope_has_word(KrScope *self, TSNode decl, const char *word) {
  return has_word(self, decl, word);
}
