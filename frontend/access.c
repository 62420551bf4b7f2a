/* frontend/access.c: read/write sets per pointer parameter (access.h). For one parameter the
 * analysis floods outward: every use of the parameter's name is classified by walking up its
 * parents (arithmetic and casts keep a derived pointer, `[]`/`*`/`->` reach an element, `=`/`+=`
 * /`++` on an element write it, a call hands it to a function), and every local that receives a
 * derived pointer joins the flood as an alias. Helpers defined in the file are analysed the same
 * way for the parameter they receive. Anything else makes the pointer unsure. */
#include "frontend/access.h"

#include "frontend/types.h"

#include <string.h>

#include "frontend/affine.h"

#define MAX_HELPER_DEPTH 4

/* ---- Functions under analysis ---------------------------------------------------------------- */

/* The kernel, or a helper seen through a call. Only node, body and params are used, so that
 * kr_resolve works the same on both. */
typedef struct Fn {
  KrKernel k;
  KrVec(TSNode) idents; /* every identifier in the body, in source order */
} Fn;

typedef struct Ctx {
  const KrTree *t;
  const KrSyms *s;
  KrArena *a;
} Ctx;

/* One item of a flood: a binding whose value is a pointer derived from the parameter (or, with
 * elem, a reference to one of its elements). */
typedef struct Item {
  KrBinding b;
  const char *name;
  const char *via;
  const char *type; /* pointee type, NULL when unknown */
  bool elem;
  bool root; /* the parameter itself */
} Item;

typedef struct Flow {
  Ctx *cx;
  Fn *fn;
  KrPtrAccess *out;
  KrVec(Item) work;
  int depth;
} Flow;

static void collect_idents(Ctx *cx, Fn *fn, TSNode n) {
  if (ts_node_symbol(n) == cx->s->identifier) {
    kr_vec_push(cx->a, &fn->idents, n);
    return;
  }
  uint32_t c = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < c; i++) collect_idents(cx, fn, ts_node_named_child(n, i));
}

static char *flat(Ctx *cx, TSNode n) { return kr_node_text_flat(cx->t, n, cx->a); }

static char *pos(Ctx *cx, TSNode n) {
  TSPoint p = ts_node_start_point(n);
  return kr_arena_printf(cx->a, "%u:%u", p.row + 1, p.column + 1);
}

static bool is_field(TSNode parent, const char *field, TSNode child) {
  TSNode c = ts_node_child_by_field_name(parent, field, (uint32_t)strlen(field));
  return !ts_node_is_null(c) && ts_node_eq(c, child);
}

static bool op_is(Ctx *cx, TSNode n, const char *op) { return kr_node_operator_is(cx->t, n, op); }

static const char *join(Ctx *cx, const char *via, const char *more) {
  return via ? kr_arena_printf(cx->a, "%s, %s", via, more) : more;
}

/* The way a pointer reaches a call: "'atomicAdd'", "the address of an element passed to
 * 'atomicAdd'". */
static const char *passed(Ctx *cx, const char *via, const char *what) {
  return via ? kr_arena_printf(cx->a, "%s passed to %s", via, what) : what;
}

/* Parameters of a helper's function_declarator, in the shape KrParam has for kernels. */
static void read_fn_params(Ctx *cx, Fn *fn, TSNode fdecl) {
  TSNode list = ts_node_child_by_field_name(fdecl, "parameters", 10);
  if (ts_node_is_null(list)) return;
  for (uint32_t i = 0; i < ts_node_named_child_count(list); i++) {
    TSNode pd = ts_node_named_child(list, i);
    TSSymbol sym = ts_node_symbol(pd);
    if (sym != cx->s->parameter_declaration && sym != cx->s->optional_parameter_declaration &&
        sym != cx->s->variadic_parameter_declaration)
      continue;
    KrParam p = {.name = "", .node = pd, .index = (uint32_t)fn->k.params.len};
    TSNode type = ts_node_child_by_field_name(pd, "type", 4);
    p.base = ts_node_is_null(type) ? "" : flat(cx, type);
    TSNode d = ts_node_child_by_field_name(pd, "declarator", 10);
    TSNode id = kr_declarator_name(cx->t, d);
    if (!ts_node_is_null(id)) p.name = flat(cx, id);
    for (TSNode n = ts_node_is_null(id) ? id : ts_node_parent(id);
         !ts_node_is_null(n) && !ts_node_eq(n, pd); n = ts_node_parent(n)) {
      if (ts_node_symbol(n) == cx->s->pointer_declarator) p.pointer_depth++;
      if (ts_node_symbol(n) == cx->s->reference_declarator) p.is_reference = true;
    }
    for (uint32_t j = 0; j < ts_node_named_child_count(pd); j++) {
      TSNode q = ts_node_named_child(pd, j);
      if (ts_node_symbol(q) == cx->s->type_qualifier && kr_node_text_is(cx->t, q, "const"))
        p.is_const = true;
    }
    if (sym == cx->s->variadic_parameter_declaration) p.name = "...";
    kr_vec_push(cx->a, &fn->k.params, p);
  }
}

/* ---- Recording ------------------------------------------------------------------------------- */

static void site(Flow *fl, unsigned kind, TSNode node, TSNode elem, bool direct, const char *via,
                 const char *type) {
  TSPoint p = ts_node_start_point(node);
  KrAccessSite s = {.kind = kind,
                    .node = node,
                    .elem = elem,
                    .direct = direct,
                    .via = direct ? NULL : via,
                    .elem_type = type,
                    .line = p.row + 1,
                    .col = p.column + 1};
  kr_vec_push(fl->cx->a, &fl->out->sites, s);
}

static void unsure(Flow *fl, TSNode at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void unsure(Flow *fl, TSNode at, const char *fmt, ...) {
  if (!fl->out->sure) return;
  fl->out->sure = false;
  va_list ap;
  va_start(ap, fmt);
  fl->out->unsure_why = kr_arena_vprintf(fl->cx->a, fmt, ap);
  va_end(ap);
  fl->out->unsure_at = ts_node_start_byte(at);
}

static void needs_mutable(Flow *fl, TSNode at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void needs_mutable(Flow *fl, TSNode at, const char *fmt, ...) {
  if (fl->out->mutable_why) return;
  va_list ap;
  va_start(ap, fmt);
  fl->out->mutable_why = kr_arena_vprintf(fl->cx->a, fmt, ap);
  va_end(ap);
  fl->out->mutable_at = ts_node_start_byte(at);
}

static void moved(Flow *fl, TSNode at) {
  if (fl->out->moved) return;
  fl->out->moved = true;
  fl->out->moved_at = ts_node_start_byte(at);
}

static void push_item(Flow *fl, Item it) {
  for (size_t i = 0; i < fl->work.len; i++)
    if (kr_binding_same(fl->work.data[i].b, it.b) && fl->work.data[i].elem == it.elem) return;
  kr_vec_push(fl->cx->a, &fl->work, it);
}

/* Facts about the declared type of a pointer-holding binding. */
typedef struct DeclInfo {
  bool is_auto, is_const, is_ref;
  int depth; /* pointer declarators between the declaration and the name */
  const char *base; /* the type specifier's text */
} DeclInfo;

static DeclInfo decl_info(Ctx *cx, KrBinding b) {
  DeclInfo d = {.base = ""};
  TSNode type = ts_node_child_by_field_name(b.decl, "type", 4);
  if (!ts_node_is_null(type)) {
    d.base = flat(cx, type);
    d.is_auto = strstr(d.base, "auto") != NULL || strncmp(d.base, "decltype", 8) == 0;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(b.decl); i++) {
    TSNode q = ts_node_named_child(b.decl, i);
    if (ts_node_symbol(q) == cx->s->type_qualifier && kr_node_text_is(cx->t, q, "const"))
      d.is_const = true;
  }
  for (TSNode n = ts_node_parent(b.name); !ts_node_is_null(n) && !ts_node_eq(n, b.decl);
       n = ts_node_parent(n)) {
    if (ts_node_symbol(n) == cx->s->pointer_declarator) d.depth++;
    if (ts_node_symbol(n) == cx->s->reference_declarator) d.is_ref = true;
  }
  return d;
}

/* Is `base` a type parameter of the template around function definition `def`? Then a helper
 * parameter `T *p` deduces const from its argument. */
static bool template_type_param(Ctx *cx, TSNode def, const char *base) {
  TSNode tmpl = ts_node_parent(def);
  if (ts_node_is_null(tmpl) || ts_node_symbol(tmpl) != cx->s->template_declaration) return false;
  TSNode params = ts_node_child_by_field_name(tmpl, "parameters", 10);
  if (ts_node_is_null(params)) return false;
  for (uint32_t i = 0; i < ts_node_named_child_count(params); i++) {
    TSNode p = ts_node_named_child(params, i);
    if (strcmp(ts_node_type(p), "type_parameter_declaration") != 0) continue;
    for (uint32_t j = 0; j < ts_node_named_child_count(p); j++) {
      TSNode id = ts_node_named_child(p, j);
      if (kr_node_text_is(cx->t, id, base)) return true;
    }
  }
  return false;
}

/* ---- Functions called with a pointer --------------------------------------------------------- */

static const char *callee_name(Ctx *cx, TSNode call) {
  TSNode fn = ts_node_child_by_field_name(call, "function", 8);
  if (ts_node_is_null(fn)) return NULL;
  TSSymbol s = ts_node_symbol(fn);
  if (s == cx->s->template_function)
    fn = ts_node_child_by_field_name(fn, "name", 4);
  else if (s == cx->s->qualified_identifier) {
    while (!ts_node_is_null(fn) && ts_node_symbol(fn) == cx->s->qualified_identifier)
      fn = ts_node_child_by_field_name(fn, "name", 4);
    if (!ts_node_is_null(fn) && ts_node_symbol(fn) == cx->s->template_function)
      fn = ts_node_child_by_field_name(fn, "name", 4);
  }
  if (ts_node_is_null(fn) || ts_node_symbol(fn) != cx->s->identifier) return NULL;
  return flat(cx, fn);
}

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool name_in(const char *name, const char *const *list) {
  for (size_t i = 0; list[i]; i++)
    if (strcmp(name, list[i]) == 0) return true;
  return false;
}

/* CUDA built-ins that take a pointer: what they do to the memory behind argument `ai`. Returns 0
 * when `name` is not one of them, -1 when the argument is not a memory operand. */
static int builtin_effect(const char *name, uint32_t ai) {
  static const char *const loads[] = {"__ldg",  "__ldca", "__ldcg", "__ldcs",
                                      "__ldlu", "__ldcv", "printf", NULL};
  static const char *const stores[] = {"__stcg", "__stcs", "__stwb", "__stwt", "memset", NULL};
  static const char *const copies[] = {"memcpy", "memmove", "__pipeline_memcpy_async",
                                       "memcpy_async", NULL};
  if (starts(name, "atomic")) return ai == 0 ? KR_ACCESS_READ | KR_ACCESS_WRITE : -1;
  if (name_in(name, loads)) return KR_ACCESS_READ;
  if (name_in(name, stores)) return ai == 0 ? KR_ACCESS_WRITE : -1;
  if (name_in(name, copies)) return ai == 0 ? KR_ACCESS_WRITE : ai == 1 ? KR_ACCESS_READ : -1;
  return 0;
}

/* Functions that take their arguments by value: an element passed to them is only read. */
bool kr_access_value_function(const char *name) {
  static const char *const math[] = {
      "sin",    "cos",       "tan",      "asin",       "acos",      "atan",    "atan2",
      "sinh",   "cosh",      "tanh",     "asinh",      "acosh",     "atanh",   "exp",
      "exp2",   "exp10",     "expm1",    "log",        "log2",      "log10",   "log1p",
      "pow",    "sqrt",      "rsqrt",    "cbrt",       "rcbrt",     "hypot",   "fabs",
      "abs",    "fmin",      "fmax",     "min",        "max",       "fma",     "floor",
      "ceil",   "round",     "trunc",    "rint",       "nearbyint", "lround",  "llround",
      "fmod",   "remainder", "copysign", "erf",        "erfc",      "erfinv",  "erfcinv",
      "lgamma", "tgamma",    "isnan",    "isinf",      "isfinite",  "signbit", "ldexp",
      "scalbn", "fdim",      "normcdf",  "normcdfinv", "sinpi",     "cospi",   "llabs",
      "labs",   "printf",    "saturate", "fdivide",    NULL};
  if (starts(name, "__") || starts(name, "make_") || builtin_effect(name, 0) != 0) return true;
  if (name_in(name, math)) return true;
  size_t n = strlen(name);
  if (n > 1 && name[n - 1] == 'f') {
    char buf[32];
    if (n - 1 >= sizeof buf) return false;
    memcpy(buf, name, n - 1);
    buf[n - 1] = 0;
    return name_in(buf, math);
  }
  return false;
}

/* Definitions and declarations of a function named `name` anywhere in the file. */
typedef struct Found {
  int ndefs;
  TSNode def; /* function_definition */
  TSNode proto; /* a declaration's function_declarator, when there is no definition */
} Found;

static TSNode fn_declarator(Ctx *cx, TSNode d) {
  while (!ts_node_is_null(d) && ts_node_symbol(d) != cx->s->function_declarator)
    d = ts_node_child_by_field_name(d, "declarator", 10);
  return d;
}

static void find_fn(Ctx *cx, TSNode n, const char *name, Found *f) {
  TSSymbol s = ts_node_symbol(n);
  if (s == cx->s->function_definition || s == cx->s->declaration) {
    TSNode fd = fn_declarator(cx, ts_node_child_by_field_name(n, "declarator", 10));
    if (ts_node_is_null(fd)) return;
    TSNode id = ts_node_child_by_field_name(fd, "declarator", 10);
    while (!ts_node_is_null(id) && ts_node_symbol(id) == cx->s->qualified_identifier)
      id = ts_node_child_by_field_name(id, "name", 4);
    if (ts_node_is_null(id) || !kr_node_text_is(cx->t, id, name)) return;
    if (s == cx->s->function_definition) {
      if (f->ndefs++ == 0) f->def = n;
    } else if (ts_node_is_null(f->proto)) {
      f->proto = fd;
    }
    return;
  }
  if (s == cx->s->compound_statement) return; /* no nested function definitions in C++ */
  uint32_t c = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < c; i++) find_fn(cx, ts_node_named_child(n, i), name, f);
}

static void flood(Flow *fl);
static void finish(Ctx *cx, KrPtrAccess *pa);

/* Analyses helper `def` for its parameter `ai` and imports what it does as sites at `call`. */
static void through_helper(Flow *fl, TSNode call, const char *name, TSNode def, uint32_t ai,
                           const char *via, const char *type) {
  Ctx *cx = fl->cx;
  Fn *h = kr_arena_alloc(cx->a, sizeof *h);
  h->k.node = def;
  h->k.name = name;
  h->k.body = ts_node_child_by_field_name(def, "body", 4);
  read_fn_params(cx, h, fn_declarator(cx, ts_node_child_by_field_name(def, "declarator", 10)));
  if (ai >= h->k.params.len || strcmp(h->k.params.data[ai].name, "...") == 0) {
    unsure(fl, call, "passed to '%s' at %s as a variadic argument", name, pos(cx, call));
    return;
  }
  const KrParam *hp = &h->k.params.data[ai];
  if (hp->is_reference || hp->pointer_depth != 1 || !*hp->name) {
    unsure(fl, call, "passed to '%s' at %s, whose parameter %u is not a plain pointer", name,
           pos(cx, call), ai + 1);
    return;
  }
  if (fl->depth >= MAX_HELPER_DEPTH) {
    unsure(fl, call, "passed to '%s' at %s, more than %d helper calls deep", name, pos(cx, call),
           MAX_HELPER_DEPTH);
    return;
  }
  if (!hp->is_const && !template_type_param(cx, def, hp->base))
    needs_mutable(fl, call, "passed to '%s' at %s, whose parameter '%s' is '%s *'", name,
                  pos(cx, call), hp->name, hp->base);
  collect_idents(cx, h, h->k.body);
  KrPtrAccess tmp = {.param = hp, .sure = true};
  Flow sub = {.cx = cx, .fn = h, .out = &tmp, .depth = fl->depth + 1};
  KrBinding b = {
      .kind = KR_BIND_PARAM,
      .decl = hp->node,
      .param = (int)ai,
      .name = kr_declarator_name(cx->t, ts_node_child_by_field_name(hp->node, "declarator", 10))};
  Item root = {.b = b, .name = hp->name, .root = true};
  kr_vec_push(cx->a, &sub.work, root);
  flood(&sub);
  if (!tmp.sure)
    unsure(fl, call, "passed to '%s' at %s, where: %s", name, pos(cx, call), tmp.unsure_why);
  finish(cx, &tmp);
  const KrAccessSite *w = kr_access_first_write(&tmp);
  if (tmp.nreads)
    site(fl, KR_ACCESS_READ, call, (TSNode){0}, false,
         passed(cx, via, kr_arena_printf(cx->a, "helper '%s'", name)), type);
  if (w)
    site(fl, KR_ACCESS_WRITE, call, (TSNode){0}, false,
         passed(cx, via,
                kr_arena_printf(cx->a, "helper '%s' (writes at %u:%u)", name, w->line, w->col)),
         type);
}

static void pointer_arg(Flow *fl, TSNode call, uint32_t ai, const char *via, const char *type) {
  Ctx *cx = fl->cx;
  if (ts_node_symbol(ts_node_child_by_field_name(call, "function", 8)) == cx->s->field_expression) {
    unsure(fl, call, "passed to the method call '%s' at %s", flat(cx, call), pos(cx, call));
    return;
  }
  const char *name = callee_name(cx, call);
  if (!name) {
    unsure(fl, call, "passed to '%s' at %s", flat(cx, call), pos(cx, call));
    return;
  }
  int eff = builtin_effect(name, ai);
  if (eff > 0) {
    site(fl, (unsigned)eff, call, (TSNode){0}, false,
         passed(cx, via, kr_arena_printf(cx->a, "'%s'", name)), type);
    return;
  }
  if (eff < 0) return;
  Found f = {0};
  find_fn(cx, kr_tree_root(cx->t), name, &f);
  if (f.ndefs > 1) {
    unsure(fl, call, "passed to '%s' at %s, which has %d definitions here", name, pos(cx, call),
           f.ndefs);
    return;
  }
  if (f.ndefs == 1 && ts_node_eq(f.def, fl->fn->k.node)) {
    unsure(fl, call, "passed to '%s' at %s, a recursive call", name, pos(cx, call));
  } else if (f.ndefs == 1) {
    through_helper(fl, call, name, f.def, ai, via, type);
  } else if (!ts_node_is_null(f.proto)) {
    /* Only declared: a const pointee is taken at its word (a const_cast in code krewrite cannot
     * see is not assumed); anything else might write. */
    Fn p = {0};
    read_fn_params(cx, &p, f.proto);
    if (ai < p.k.params.len && p.k.params.data[ai].is_const &&
        p.k.params.data[ai].pointer_depth == 1)
      site(fl, KR_ACCESS_READ, call, (TSNode){0}, false,
           passed(cx, via, kr_arena_printf(cx->a, "'%s'", name)), type);
    else
      unsure(fl, call, "passed to '%s' at %s, which is declared but not defined in this file", name,
             pos(cx, call));
  } else {
    unsure(fl, call, "passed to '%s' at %s, which is not defined in this file", name,
           pos(cx, call));
  }
}

/* ---- Classifying uses ------------------------------------------------------------------------ */

static void ptr_use(Flow *fl, TSNode n, const char *via, const char *type, bool direct);

/* Parameter `ai` of a parameter list: by value or const reference (read), or a non-const
 * reference (read and write). */
static unsigned param_effect(Ctx *cx, TSNode fdecl, uint32_t ai) {
  Fn f = {0};
  read_fn_params(cx, &f, fdecl);
  if (ai >= f.k.params.len) return KR_ACCESS_READ; /* variadic: by value */
  const KrParam *p = &f.k.params.data[ai];
  return p->is_reference && !p->is_const ? KR_ACCESS_READ | KR_ACCESS_WRITE : KR_ACCESS_READ;
}

/* An element is passed to a call through argument list `args`: how is it used? Functions krewrite
 * cannot see make the pointer unsure, since C++ could bind the element to a reference. */
static unsigned element_arg(Flow *fl, TSNode e, TSNode args) {
  Ctx *cx = fl->cx;
  TSNode call = ts_node_parent(args);
  TSNode fn = ts_node_child_by_field_name(call, "function", 8);
  const char *name = callee_name(cx, call);
  uint32_t ai = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (ts_node_eq(a, e)) break;
    if (ts_node_symbol(a) != cx->s->comment) ai++;
  }
  if (ts_node_is_null(fn) || ts_node_symbol(fn) == cx->s->primitive_type) return KR_ACCESS_READ;
  if (name &&
      (kr_access_value_function(name) || strcmp(name, "static_cast") == 0 ||
       strcmp(name, "reinterpret_cast") == 0))
    return KR_ACCESS_READ;
  if (name && ts_node_symbol(fn) == cx->s->identifier) {
    KrBinding b = kr_resolve(cx->t, &fl->fn->k, fn);
    if (b.kind == KR_BIND_LOCAL && !ts_node_is_null(b.value) &&
        ts_node_symbol(b.value) == cx->s->lambda_expression) {
      TSNode d = ts_node_child_by_field_name(b.value, "declarator", 10);
      if (!ts_node_is_null(d)) return param_effect(cx, d, ai);
    }
  }
  Found f = {0};
  if (name) find_fn(cx, kr_tree_root(cx->t), name, &f);
  if (f.ndefs == 1)
    return param_effect(cx, fn_declarator(cx, ts_node_child_by_field_name(f.def, "declarator", 10)),
                        ai);
  unsure(fl, e,
         "the element '%s' is passed to '%s' at %s, which krewrite cannot see (it could take a "
         "reference)",
         flat(cx, e), name ? name : flat(cx, fn), pos(cx, e));
  return KR_ACCESS_READ;
}

/* `T &r = x[i]`: a non-const reference becomes an element alias whose uses are followed; true
 * when handled that way (false for a const reference, which is a plain read). */
static bool element_ref(Flow *fl, TSNode e, TSNode init, const char *via, const char *type) {
  Ctx *cx = fl->cx;
  TSNode d = ts_node_child_by_field_name(init, "declarator", 10);
  KrBinding b = {.kind = KR_BIND_LOCAL,
                 .decl = ts_node_parent(init),
                 .value = e,
                 .param = -1,
                 .name = kr_declarator_name(cx->t, d)};
  if (decl_info(cx, b).is_const) return false;
  const char *name = flat(cx, b.name);
  Item it = {
      .b = b,
      .name = name,
      .type = type,
      .elem = true,
      .via = join(cx, via, kr_arena_printf(cx->a, "reference '%s' (%s)", name, pos(cx, b.name)))};
  push_item(fl, it);
  return true;
}

/* An element (`x[i]`, `*p`, `p->f`, or a member of one) is used. `elem` is the element node the
 * pointer was dereferenced by. */
static void element(Flow *fl, TSNode e, TSNode elem, const char *via, const char *type,
                    bool direct) {
  Ctx *cx = fl->cx;
  TSNode p = ts_node_parent(e);
  TSSymbol s = ts_node_symbol(p);
  const char *ptype = ts_node_type(p);
  unsigned kind = KR_ACCESS_READ;
  if (s == cx->s->parenthesized_expression ||
      (s == cx->s->field_expression && is_field(p, "argument", e)) ||
      (s == cx->s->subscript_expression && is_field(p, "argument", e))) {
    element(fl, p, elem, via, type, direct); /* a member or part of the element */
    return;
  }
  if (s == cx->s->pointer_expression && op_is(cx, p, "&")) {
    ptr_use(fl, p, join(cx, direct ? NULL : via, "the address of an element"), type, false);
    return;
  }
  if (s == cx->s->sizeof_expression || strcmp(ptype, "decltype") == 0 ||
      strcmp(ptype, "alignof_expression") == 0)
    return; /* not evaluated */
  if (s == cx->s->init_declarator && is_field(p, "value", e) &&
      ts_node_symbol(ts_node_child_by_field_name(p, "declarator", 10)) ==
          cx->s->reference_declarator &&
      element_ref(fl, e, p, via, type))
    return;
  if (s == cx->s->assignment_expression && is_field(p, "left", e))
    kind = op_is(cx, p, "=") ? KR_ACCESS_WRITE : KR_ACCESS_READ | KR_ACCESS_WRITE;
  else if (s == cx->s->update_expression)
    kind = KR_ACCESS_READ | KR_ACCESS_WRITE;
  else if (s == cx->s->argument_list)
    kind = element_arg(fl, e, p);
  site(fl, kind, e, elem, direct, via, type);
}

/* A pointer value derived from the parameter is stored into the variable of binding b (from an
 * assignment to `target`, or a declaration's initializer). */
static void store_into(Flow *fl, KrBinding b, TSNode target, TSNode at, const char *via,
                       const char *type) {
  Ctx *cx = fl->cx;
  if (b.kind != KR_BIND_LOCAL && b.kind != KR_BIND_PARAM) {
    unsure(fl, at, "stored into '%s' at %s, which is not a local variable", flat(cx, target),
           pos(cx, at));
    return;
  }
  DeclInfo d = decl_info(cx, b);
  const char *name = flat(cx, b.name);
  if (d.is_ref && d.depth > 0) {
    unsure(fl, at, "bound to the reference '%s' at %s", name, pos(cx, at));
    return;
  }
  if (d.depth == 0 && !d.is_auto) {
    if (strcmp(d.base, "bool") != 0)
      unsure(fl, at, "converted to '%s' ('%s') at %s", d.base, name, pos(cx, at));
    return;
  }
  const char *t = type;
  if (!d.is_auto) {
    t = d.depth == 1 ? d.base : NULL;
    if (t && strncmp(t, "const ", 6) == 0) t += 6;
    if (!d.is_const)
      needs_mutable(fl, at, "alias '%s' is declared '%s *' at %s", name, d.base, pos(cx, b.name));
  }
  Item it = {.b = b,
             .name = name,
             .type = t,
             .via =
                 join(cx, via, kr_arena_printf(cx->a, "alias '%s' (%s)", name, pos(cx, b.name)))};
  fl->out->naliases++;
  push_item(fl, it);
}

/* Is n, a pointer converted to an integer, only tested for alignment: the left operand of `%`,
 * alone or or-ed with other such addresses (`(a | b) % 16 == 0`, the run-time checks vectorize
 * and the schedule passes write)? A remainder of the address says nothing through which the
 * memory could be reached, so the pointer stays one the analysis follows. */
static bool alignment_test(Ctx *cx, TSNode n) {
  for (;;) {
    TSNode p = ts_node_parent(n);
    if (ts_node_is_null(p)) return false;
    TSSymbol s = ts_node_symbol(p);
    if (s == cx->s->parenthesized_expression) {
      n = p;
      continue;
    }
    if (s != cx->s->binary_expression) return false;
    const char *o = ts_node_type(ts_node_child_by_field_name(p, "operator", 8));
    if (strcmp(o, "|") != 0) return strcmp(o, "%") == 0 && is_field(p, "left", n);
    n = p;
  }
}

static void cast_use(Flow *fl, TSNode castn, TSNode type_desc, const char *via, bool c_style,
                     bool is_const_cast) {
  Ctx *cx = fl->cx;
  const char *ty = flat(cx, type_desc);
  bool pc;
  const char *pt = kr_type_pointee_text(ty, &pc, cx->a);
  if (!pt) {
    if (strcmp(ty, "bool") != 0 && !alignment_test(cx, castn))
      unsure(fl, castn, "converted to '%s' at %s", ty, pos(cx, castn));
    return;
  }
  if (!pc && !c_style && !is_const_cast)
    needs_mutable(fl, castn, "cast to '%s' at %s", ty, pos(cx, castn));
  ptr_use(fl, castn, join(cx, via, kr_arena_printf(cx->a, "cast to '%s'", ty)),
          strchr(pt, '*') ? NULL : pt, false);
}

/* The call around argument list `args` receives pointer expression n as an argument. */
static void pointer_passed(Flow *fl, TSNode n, TSNode args, const char *via, const char *type) {
  Ctx *cx = fl->cx;
  TSNode call = ts_node_parent(args);
  if (ts_node_symbol(call) != cx->s->call_expression) {
    unsure(fl, n, "used in '%s' at %s", flat(cx, call), pos(cx, n));
    return;
  }
  TSNode fn = ts_node_child_by_field_name(call, "function", 8);
  for (uint32_t i = 0; i < ts_node_named_child_count(call); i++)
    if (ts_node_symbol(ts_node_named_child(call, i)) == cx->s->kernel_call_syntax) {
      unsure(fl, n, "passed to the kernel launch at %s", pos(cx, call));
      return;
    }
  if (!ts_node_is_null(fn) && ts_node_symbol(fn) == cx->s->template_function) {
    TSNode name = ts_node_child_by_field_name(fn, "name", 4);
    TSNode targs = ts_node_child_by_field_name(fn, "arguments", 9);
    const char *cn = flat(cx, name);
    if ((strcmp(cn, "reinterpret_cast") == 0 || strcmp(cn, "static_cast") == 0 ||
         strcmp(cn, "const_cast") == 0) &&
        ts_node_named_child_count(targs) == 1) {
      cast_use(fl, call, ts_node_named_child(targs, 0), via, false, strcmp(cn, "const_cast") == 0);
      return;
    }
  }
  uint32_t ai = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
    TSNode a = ts_node_named_child(args, i);
    if (ts_node_eq(a, n)) break;
    if (ts_node_symbol(a) != cx->s->comment) ai++;
  }
  const char *name = callee_name(cx, call);
  if (name && strcmp(name, "__builtin_assume_aligned") == 0 && ai == 0) {
    ptr_use(fl, call, via, type, false);
    return;
  }
  pointer_arg(fl, call, ai, via, type);
}

static void ptr_binary(Flow *fl, TSNode n, TSNode p, const char *via, const char *type) {
  Ctx *cx = fl->cx;
  static const char *const tests[] = {"==", "!=", "<", ">", "<=", ">=", "&&", "||", NULL};
  TSNode op = ts_node_child_by_field_name(p, "operator", 8);
  const char *o = ts_node_type(op);
  if (name_in(o, tests)) return;
  if (strcmp(o, "+") == 0 || (strcmp(o, "-") == 0 && is_field(p, "left", n))) {
    ptr_use(fl, p, join(cx, via, "pointer arithmetic"), type, false);
    return;
  }
  if (strcmp(o, "-") == 0) return; /* q - p: a distance, not an access */
  unsure(fl, n, "used with '%s' at %s", o, pos(cx, p));
}

static void ptr_assign(Flow *fl, TSNode n, TSNode p, const char *via, const char *type,
                       bool direct) {
  Ctx *cx = fl->cx;
  if (is_field(p, "left", n)) {
    if (direct) moved(fl, p);
    /* `p += n` still points into the same memory; `p = q` now holds q's value, which q's own
     * flood follows. */
    if (!op_is(cx, p, "=")) ptr_use(fl, p, via, type, false);
    return;
  }
  TSNode left = ts_node_child_by_field_name(p, "left", 4);
  while (!ts_node_is_null(left) && ts_node_symbol(left) == cx->s->parenthesized_expression)
    left = ts_node_named_child(left, 0);
  if (!op_is(cx, p, "=")) {
    unsure(fl, n, "used in '%s' at %s", flat(cx, p), pos(cx, p));
    return;
  }
  if (ts_node_symbol(left) != cx->s->identifier) {
    unsure(fl, n, "stored into memory ('%s') at %s", flat(cx, left), pos(cx, p));
    return;
  }
  store_into(fl, kr_resolve(cx->t, &fl->fn->k, left), left, p, via, type);
}

/* The pointer value n is used by its parent p in a way that reads or writes nothing through it
 * (a test, a discarded value, sizeof), or in a way the analysis cannot follow. */
static void ptr_end(Flow *fl, TSNode n, TSNode p) {
  Ctx *cx = fl->cx;
  const KrSyms *s = cx->s;
  TSSymbol ps = ts_node_symbol(p);
  const char *type = ts_node_type(p);
  bool test = (ps == s->if_statement || ps == s->while_statement || ps == s->do_statement ||
               ps == s->for_statement) &&
      is_field(p, "condition", n);
  if (test || ps == s->unary_expression || ps == s->expression_statement ||
      ps == s->condition_clause || ps == s->sizeof_expression ||
      strcmp(type, "lambda_capture_specifier") == 0 || strcmp(type, "decltype") == 0)
    return;
  if (ps == s->pointer_expression)
    unsure(fl, n, "its address is taken at %s", pos(cx, p));
  else if (ps == s->return_statement)
    unsure(fl, n, "returned at %s", pos(cx, p));
  else if (strcmp(type, "initializer_list") == 0 || strcmp(type, "initializer_pair") == 0)
    unsure(fl, n, "stored in an initializer list at %s", pos(cx, p));
  else
    unsure(fl, n, "used in a %s at %s, which the analysis does not follow", type, pos(cx, p));
}

/* `T *q = <n>`: q becomes an alias. */
static void ptr_declared(Flow *fl, TSNode n, TSNode init, const char *via, const char *type) {
  Ctx *cx = fl->cx;
  TSNode d = ts_node_child_by_field_name(init, "declarator", 10);
  KrBinding b = {.kind = KR_BIND_LOCAL,
                 .decl = ts_node_parent(init),
                 .value = n,
                 .param = -1,
                 .name = kr_declarator_name(cx->t, d)};
  if (ts_node_is_null(b.name) || ts_node_symbol(b.decl) != cx->s->declaration)
    b.kind = KR_BIND_NONE;
  store_into(fl, b, d, init, via, type);
}

/* A pointer value n derived from the parameter (`direct`: n is the parameter's own name) is used
 * by its parent: follow it to an element, an alias, a call, or the end of its use. */
static void ptr_use(Flow *fl, TSNode n, const char *via, const char *type, bool direct) {
  Ctx *cx = fl->cx;
  const KrSyms *s = cx->s;
  TSNode p = ts_node_parent(n);
  TSSymbol ps = ts_node_symbol(p);
  bool deref = (ps == s->subscript_expression && is_field(p, "argument", n)) ||
      (ps == s->pointer_expression && op_is(cx, p, "*")) ||
      (ps == s->field_expression && is_field(p, "argument", n) && op_is(cx, p, "->"));
  if (ps == s->parenthesized_expression) {
    ptr_use(fl, p, via, type, direct);
  } else if (deref) {
    element(fl, p, p, via, type, direct);
  } else if (ps == s->binary_expression) {
    ptr_binary(fl, n, p, via, type);
  } else if (ps == s->assignment_expression) {
    ptr_assign(fl, n, p, via, type, direct);
  } else if (ps == s->update_expression) {
    if (direct) moved(fl, p);
    ptr_use(fl, p, via, type, false);
  } else if (ps == s->conditional_expression || ps == s->comma_expression) {
    /* The value is one of the branches, or the right operand; a condition is only tested. */
    bool value = ps == s->comma_expression ? is_field(p, "right", n) : !is_field(p, "condition", n);
    if (value) ptr_use(fl, p, via, type, false);
  } else if (ps == s->cast_expression) {
    cast_use(fl, p, ts_node_child_by_field_name(p, "type", 4), via, true, false);
  } else if (ps == s->argument_list) {
    pointer_passed(fl, n, p, via, type);
  } else if (ps == s->init_declarator && is_field(p, "value", n)) {
    ptr_declared(fl, n, p, via, type);
  } else {
    ptr_end(fl, n, p);
  }
}

/* ---- Driving the flood ----------------------------------------------------------------------- */

static bool in_asm(Ctx *cx, TSNode n) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p))
    if (ts_node_symbol(p) == cx->s->gnu_asm_expression) return true;
  return false;
}

static void flood(Flow *fl) {
  Ctx *cx = fl->cx;
  for (size_t w = 0; w < fl->work.len; w++) {
    Item it = fl->work.data[w];
    size_t len = strlen(it.name);
    for (size_t i = 0; i < fl->fn->idents.len; i++) {
      TSNode id = fl->fn->idents.data[i];
      if (ts_node_end_byte(id) - ts_node_start_byte(id) != len ||
          !kr_node_text_is(cx->t, id, it.name) || ts_node_eq(id, it.b.name))
        continue;
      if (!kr_binding_same(kr_resolve(cx->t, &fl->fn->k, id), it.b)) continue;
      if (in_asm(cx, id)) {
        unsure(fl, id, "used in inline asm at %s", pos(cx, id));
        continue;
      }
      if (it.elem)
        element(fl, id, id, it.via, it.type, false);
      else
        ptr_use(fl, id, it.root ? NULL : it.via, it.type, it.root);
    }
  }
}

static int site_cmp(const void *x, const void *y) {
  const KrAccessSite *a = x, *b = y;
  uint32_t p = ts_node_start_byte(a->node), q = ts_node_start_byte(b->node);
  return p < q ? -1 : p > q;
}

static void finish(Ctx *cx, KrPtrAccess *pa) {
  if (pa->sites.len > 1) qsort(pa->sites.data, pa->sites.len, sizeof *pa->sites.data, site_cmp);
  for (size_t i = 0; i < pa->sites.len; i++) {
    const KrAccessSite *s = &pa->sites.data[i];
    if (s->kind & KR_ACCESS_READ) pa->nreads++;
    if (s->kind & KR_ACCESS_WRITE) pa->nwrites++;
  }
  const KrAccessSite *w = kr_access_first_write(pa);
  if (w && !pa->mutable_why) {
    pa->mutable_why = kr_arena_printf(cx->a, "it is written at %u:%u", w->line, w->col);
    pa->mutable_at = ts_node_start_byte(w->node);
  }
}

KrAccess *kr_access_new(const KrTree *tree, const KrKernel *k, KrArena *arena) {
  Ctx cx = {.t = tree, .s = &tree->sym, .a = arena};
  KrAccess *acc = kr_arena_alloc(arena, sizeof *acc);
  acc->kernel = k;
  Fn *fn = kr_arena_alloc(arena, sizeof *fn);
  fn->k = *k;
  collect_idents(&cx, fn, k->body);
  for (size_t i = 0; i < k->params.len; i++) {
    const KrParam *p = &k->params.data[i];
    if (p->pointer_depth == 0 || !*p->name) continue;
    KrPtrAccess pa = {.param = p, .sure = true};
    for (uint32_t q = 0; q < ts_node_named_child_count(p->node); q++) {
      TSNode c = ts_node_named_child(p->node, q);
      if (ts_node_symbol(c) == cx.s->type_qualifier && kr_node_text_is(tree, c, "volatile"))
        pa.is_volatile = true;
    }
    Flow fl = {.cx = &cx, .fn = fn, .out = &pa};
    if (p->pointer_depth > 1 || p->is_reference)
      unsure(&fl, p->node, "'%s' is '%s': only one level of pointers is analysed", p->name,
             p->type);
    KrBinding b = {
        .kind = KR_BIND_PARAM,
        .decl = p->node,
        .param = (int)i,
        .name = kr_declarator_name(tree, ts_node_child_by_field_name(p->node, "declarator", 10))};
    Item root = {
        .b = b, .name = p->name, .root = true, .type = p->pointer_depth == 1 ? p->base : NULL};
    kr_vec_push(arena, &fl.work, root);
    flood(&fl);
    finish(&cx, &pa);
    kr_vec_push(arena, &acc->ptrs, pa);
  }
  return acc;
}

const KrPtrAccess *kr_access_find(const KrAccess *self, const char *name) {
  for (size_t i = 0; i < self->ptrs.len; i++)
    if (strcmp(self->ptrs.data[i].param->name, name) == 0) return &self->ptrs.data[i];
  return NULL;
}

const KrAccessSite *kr_access_first_write(const KrPtrAccess *p) {
  for (size_t i = 0; i < p->sites.len; i++)
    if (p->sites.data[i].kind & KR_ACCESS_WRITE) return &p->sites.data[i];
  return NULL;
}

const char *kr_access_names(const KrAccess *self, KrArena *arena) {
  KrBuf b = {0};
  for (size_t i = 0; i < self->ptrs.len; i++)
    kr_buf_printf(&b, "%s%s", i ? ", " : "", self->ptrs.data[i].param->name);
  char *s = kr_arena_strndup(arena, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return s;
}
