/* frontend/model.c: builds the kernel model (model.h) from a parsed file: a walk over the
 * top-level declarations for __global__ definitions, a walk of each kernel body for __shared__
 * declarations and loops, and a walk of the whole tree for <<<…>>> launches. */
#include "frontend/model.h"

#include <ctype.h>
#include <string.h>

typedef struct Ctx {
  const KrTree *t;
  const KrSyms *s;
  KrArena *a;
  KrModel *m;
} Ctx;

static char *text(Ctx *cx, TSNode n) { return kr_node_text(cx->t, n, cx->a); }

static char *flat_text(Ctx *cx, TSNode n) { return kr_node_text_flat(cx->t, n, cx->a); }

static bool has_child_symbol(TSNode n, TSSymbol sym) {
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (ts_node_symbol(ts_node_child(n, i)) == sym) return true;
  return false;
}

/* A named child that is a type_qualifier spelling `word`. */
static bool has_qualifier(Ctx *cx, TSNode n, const char *word) {
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode c = ts_node_named_child(n, i);
    TSSymbol sym = ts_node_symbol(c);
    if ((sym == cx->s->type_qualifier || sym == cx->s->storage_class_specifier) &&
        kr_node_text_is(cx->t, c, word))
      return true;
  }
  return false;
}

static void set_pos(TSNode n, uint32_t *line, uint32_t *col, KrSpan *span) {
  TSPoint p = ts_node_start_point(n);
  *line = p.row + 1;
  *col = p.column + 1;
  span->start = ts_node_start_byte(n);
  span->end = ts_node_end_byte(n);
}

/* ---- Parameters --------------------------------------------------------------------------------- */

static void read_declarator(Ctx *cx, TSNode d, KrParam *p) {
  while (!ts_node_is_null(d)) {
    TSSymbol sym = ts_node_symbol(d);
    if (sym == cx->s->pointer_declarator) {
      p->pointer_depth++;
      /* Qualifiers on the pointer nearest the name apply to the parameter itself, so the last
       * pointer level seen on the way down wins. */
      p->is_restrict = has_qualifier(cx, d, "__restrict__") || has_qualifier(cx, d, "__restrict");
      p->is_const_ptr = has_qualifier(cx, d, "const");
    } else if (sym == cx->s->reference_declarator) {
      p->is_reference = true;
    } else if (sym == cx->s->array_declarator) {
      p->pointer_depth++; /* an array parameter decays to a pointer */
    } else if (sym == cx->s->identifier) {
      p->name = text(cx, d);
      return;
    } else if (ts_node_named_child_count(d) == 1 && sym != cx->s->identifier) {
      d = ts_node_named_child(d, 0); /* e.g. parenthesized declarators */
      continue;
    }
    TSNode next = ts_node_child_by_field_name(d, "declarator", 10);
    if (ts_node_is_null(next) && sym == cx->s->reference_declarator)
      next = ts_node_named_child(d, 0);
    d = next;
  }
}

static const char *normal_type(Ctx *cx, const KrParam *p) {
  KrBuf b = {0};
  if (p->is_const) kr_buf_puts(&b, "const ");
  kr_buf_puts(&b, p->base);
  if (p->pointer_depth) kr_buf_putc(&b, ' ');
  for (int i = 0; i < p->pointer_depth; i++) kr_buf_putc(&b, '*');
  if (p->is_const_ptr) kr_buf_puts(&b, "const");
  if (p->is_restrict) kr_buf_puts(&b, p->is_const_ptr ? " __restrict__" : "__restrict__");
  if (p->is_reference) kr_buf_puts(&b, p->pointer_depth ? "&" : " &");
  char *s = kr_arena_strndup(cx->a, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return s;
}

static void read_params(Ctx *cx, KrKernel *k, TSNode fdecl) {
  TSNode list = ts_node_child_by_field_name(fdecl, "parameters", 10);
  if (ts_node_is_null(list)) return;
  uint32_t n = ts_node_named_child_count(list);
  for (uint32_t i = 0; i < n; i++) {
    TSNode pd = ts_node_named_child(list, i);
    TSSymbol sym = ts_node_symbol(pd);
    if (sym != cx->s->parameter_declaration && sym != cx->s->optional_parameter_declaration)
      continue;
    TSNode type = ts_node_child_by_field_name(pd, "type", 4);
    TSNode decl = ts_node_child_by_field_name(pd, "declarator", 10);
    if (ts_node_is_null(decl) && !ts_node_is_null(type) && kr_node_text_is(cx->t, type, "void"))
      continue; /* f(void) */
    KrParam p = {.name = "", .index = (uint32_t)k->params.len, .node = pd};
    p.base = ts_node_is_null(type) ? "" : flat_text(cx, type);
    p.is_const = has_qualifier(cx, pd, "const");
    read_declarator(cx, decl, &p);
    p.type = normal_type(cx, &p);
    set_pos(pd, &p.line, &p.col, &p.span);
    kr_vec_push(cx->a, &k->params, p);
  }
}

/* ---- Shared declarations and loops -------------------------------------------------------------- */

static void add_shared(Ctx *cx, KrKernel *k, TSNode decl, TSNode d) {
  KrShared sh = {.node = decl};
  KrBuf dims = {0};
  /* Array declarators nest outermost-last: tile[32][33] is ((tile[32])[33]). */
  TSNode chain[16];
  int depth = 0;
  while (!ts_node_is_null(d) && depth < 16) {
    TSSymbol sym = ts_node_symbol(d);
    if (sym == cx->s->identifier) break;
    if (sym == cx->s->array_declarator) chain[depth++] = d;
    if (sym == cx->s->attribute_specifier || ts_node_named_child_count(d) == 0) break;
    TSNode next = ts_node_child_by_field_name(d, "declarator", 10);
    d = ts_node_is_null(next) ? ts_node_named_child(d, 0) : next;
  }
  for (int i = depth - 1; i >= 0; i--) {
    TSNode size = ts_node_child_by_field_name(chain[i], "size", 4);
    kr_buf_putc(&dims, '[');
    if (!ts_node_is_null(size)) kr_buf_puts(&dims, flat_text(cx, size));
    kr_buf_putc(&dims, ']');
  }
  sh.name = ts_node_is_null(d) ? "" : text(cx, d);
  sh.dims = kr_arena_strndup(cx->a, dims.data ? dims.data : "", dims.len);
  kr_buf_free(&dims);
  TSNode type = ts_node_child_by_field_name(decl, "type", 4);
  sh.type = ts_node_is_null(type) ? "" : flat_text(cx, type);
  sh.is_extern = has_qualifier(cx, decl, "extern");
  set_pos(decl, &sh.line, &sh.col, &sh.span);
  kr_vec_push(cx->a, &k->shared, sh);
}

static void read_shared(Ctx *cx, KrKernel *k, TSNode decl) {
  if (!has_qualifier(cx, decl, "__shared__")) return;
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (!f || strcmp(f, "declarator") != 0) continue;
    TSNode d = ts_node_child(decl, i);
    if (ts_node_symbol(d) == cx->s->init_declarator)
      d = ts_node_child_by_field_name(d, "declarator", 10);
    add_shared(cx, k, decl, d);
  }
}

static const char *field_text(Ctx *cx, TSNode n, const char *field) {
  TSNode c = ts_node_child_by_field_name(n, field, (uint32_t)strlen(field));
  return ts_node_is_null(c) ? NULL : flat_text(cx, c);
}

/* The induction variable of `for (int i = …` or `for (i = …`. */
static const char *loop_var(Ctx *cx, TSNode loop) {
  TSNode init = ts_node_child_by_field_name(loop, "initializer", 11);
  if (ts_node_is_null(init)) return NULL;
  TSSymbol sym = ts_node_symbol(init);
  if (sym == cx->s->declaration) {
    TSNode d = ts_node_child_by_field_name(init, "declarator", 10);
    if (!ts_node_is_null(d) && ts_node_symbol(d) == cx->s->init_declarator)
      d = ts_node_child_by_field_name(d, "declarator", 10);
    if (!ts_node_is_null(d) && ts_node_symbol(d) == cx->s->identifier) return text(cx, d);
  } else if (sym == cx->s->assignment_expression) {
    TSNode l = ts_node_child_by_field_name(init, "left", 4);
    if (!ts_node_is_null(l) && ts_node_symbol(l) == cx->s->identifier) return text(cx, l);
  }
  return NULL;
}

/* `#pragma X` on the line just before the loop, as in `#pragma unroll 4`. Read from the text
 * rather than the tree, because the parser does not see a pragma between an unbraced control
 * header and its body (tree.c blanks it). */
static const char *loop_pragma(Ctx *cx, TSNode loop) {
  const KrSource *src = cx->t->src;
  uint32_t line = ts_node_start_point(loop).row;
  while (line > 0) {
    line--;
    const char *p = src->text + src->line_starts[line];
    const char *end = src->text + (line + 1 < src->nlines ? src->line_starts[line + 1] : src->len);
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p < end && (*p == '\n' || *p == '\r')) continue; /* blank line */
    if (end - p < 7 || strncmp(p, "#pragma", 7) != 0) return NULL;
    p += 7;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    const char *q = end;
    while (q > p && (q[-1] == '\n' || q[-1] == '\r' || q[-1] == ' ' || q[-1] == '\t')) q--;
    return kr_arena_strndup(cx->a, p, (size_t)(q - p));
  }
  return NULL;
}

static bool loop_kind(Ctx *cx, TSSymbol sym, KrLoopKind *kind) {
  if (sym == cx->s->for_statement) *kind = KR_LOOP_FOR;
  else if (sym == cx->s->while_statement) *kind = KR_LOOP_WHILE;
  else if (sym == cx->s->do_statement) *kind = KR_LOOP_DO;
  else if (sym == cx->s->for_range_loop) *kind = KR_LOOP_RANGE_FOR;
  else return false;
  return true;
}

static void add_loop(Ctx *cx, KrKernel *k, TSNode c, KrLoopKind kind, uint32_t depth, int parent) {
  KrLoop l = {.kind = kind, .depth = depth, .parent = parent, .node = c};
  if (kind == KR_LOOP_FOR) {
    l.var = loop_var(cx, c);
    l.init = field_text(cx, c, "initializer");
    l.cond = field_text(cx, c, "condition");
    l.step = field_text(cx, c, "update");
  } else if (kind != KR_LOOP_RANGE_FOR) {
    TSNode cond = ts_node_child_by_field_name(c, "condition", 9);
    if (!ts_node_is_null(cond) && ts_node_named_child_count(cond) == 1)
      cond = ts_node_named_child(cond, 0); /* strip the parentheses */
    l.cond = ts_node_is_null(cond) ? NULL : flat_text(cx, cond);
  }
  l.pragma = loop_pragma(cx, c);
  set_pos(c, &l.line, &l.col, &l.span);
  kr_vec_push(cx->a, &k->loops, l);
}

/* One cursor walks the kernel body; a stack of open loops gives each loop its depth and parent. */
static void walk_body(Ctx *cx, KrKernel *k, TSNode body) {
  enum { MAX_OPEN = 64 };
  struct { uint32_t depth; int loop; } open[MAX_OPEN];
  uint32_t nopen = 0, depth = 0;
  TSTreeCursor c = ts_tree_cursor_new(body);
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    TSSymbol sym = ts_node_symbol(n);
    KrLoopKind kind;
    while (nopen && open[nopen - 1].depth >= depth) nopen--;
    if (sym == cx->s->declaration) read_shared(cx, k, n);
    else if (loop_kind(cx, sym, &kind)) {
      add_loop(cx, k, n, kind, nopen, nopen ? open[nopen - 1].loop : -1);
      if (nopen < MAX_OPEN) open[nopen].depth = depth, open[nopen++].loop = (int)k->loops.len - 1;
    }
    /* Loops and declarations are statements: expressions are not entered (a loop inside a
     * lambda inside an expression is not part of the kernel's loop nest). */
    bool leaf = sym == cx->s->expression_statement || sym == cx->s->declaration ||
                sym == cx->s->return_statement;
    if (!leaf && ts_tree_cursor_goto_first_child(&c)) {
      depth++;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c) || --depth == 0) goto done;
    }
  }
done:
  ts_tree_cursor_delete(&c);
}

/* ---- Kernels ------------------------------------------------------------------------------------ */

static TSNode function_declarator(Ctx *cx, TSNode def) {
  TSNode d = ts_node_child_by_field_name(def, "declarator", 10);
  while (!ts_node_is_null(d) && ts_node_symbol(d) != cx->s->function_declarator)
    d = ts_node_child_by_field_name(d, "declarator", 10);
  return d;
}

static const char *launch_bounds(Ctx *cx, TSNode def) {
  uint32_t n = ts_node_named_child_count(def);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_named_child(def, i);
    if (strcmp(ts_node_type(c), "launch_bounds") != 0) continue;
    KrBuf b = {0};
    for (uint32_t j = 0; j < ts_node_named_child_count(c); j++) {
      if (j) kr_buf_puts(&b, ", ");
      kr_buf_puts(&b, flat_text(cx, ts_node_named_child(c, j)));
    }
    char *s = kr_arena_strndup(cx->a, b.data ? b.data : "", b.len);
    kr_buf_free(&b);
    return s;
  }
  return NULL;
}

/* The arguments of __cluster_dims__(…) in the kernel's head (the parser sees it blanked: tree.c). */
static const char *cluster_dims(Ctx *cx, TSNode def, TSNode body) {
  const char *t = cx->t->src->text;
  uint32_t from = ts_node_start_byte(def), to = ts_node_start_byte(body);
  static const char w[] = "__cluster_dims__";
  for (uint32_t i = from; i + sizeof w - 1 <= to; i++) {
    if (memcmp(t + i, w, sizeof w - 1) != 0) continue;
    uint32_t open = i + sizeof w - 1;
    while (open < to && (t[open] == ' ' || t[open] == '\t')) open++;
    if (open >= to || t[open] != '(') return NULL;
    int depth = 0;
    for (uint32_t j = open; j < to; j++) {
      if (t[j] == '(') depth++;
      else if (t[j] == ')' && --depth == 0) return kr_arena_strndup(cx->a, t + open + 1, j - open - 1);
    }
    return NULL;
  }
  return NULL;
}

static void add_kernel(Ctx *cx, TSNode def, bool extern_c, const char *ns, TSNode tmpl) {
  if (!has_child_symbol(def, cx->s->kw_global)) return;
  TSNode fd = function_declarator(cx, def);
  TSNode body = ts_node_child_by_field_name(def, "body", 4);
  if (ts_node_is_null(fd) || ts_node_is_null(body)) return;
  KrKernel k = {.extern_c = extern_c, .node = def, .body = body};
  k.name = text(cx, ts_node_child_by_field_name(fd, "declarator", 10));
  k.qualified_name = ns ? kr_arena_printf(cx->a, "%s::%s", ns, k.name) : k.name;
  if (!ts_node_is_null(tmpl)) {
    k.is_template = true;
    TSNode tp = ts_node_child_by_field_name(tmpl, "parameters", 10);
    if (!ts_node_is_null(tp)) {
      char *s = flat_text(cx, tp);
      size_t n = strlen(s);
      k.template_params = n >= 2 ? kr_arena_strndup(cx->a, s + 1, n - 2) : s;
    }
  }
  k.launch_bounds = launch_bounds(cx, def);
  k.cluster_dims = cluster_dims(cx, def, body);
  read_params(cx, &k, fd);
  walk_body(cx, &k, body);
  set_pos(ts_node_is_null(tmpl) ? def : tmpl, &k.line, &k.col, &k.span);
  kr_vec_push(cx->a, &cx->m->kernels, k);
}

static void walk_top(Ctx *cx, TSNode n, bool extern_c, const char *ns) {
  KrChildren it;
  for (TSNode c = kr_children_first(&it, n); !ts_node_is_null(c); c = kr_children_next(&it)) {
    TSSymbol sym = ts_node_symbol(c);
    TSNode none = {0};
    if (sym == cx->s->function_definition) {
      add_kernel(cx, c, extern_c, ns, none);
    } else if (sym == cx->s->template_declaration) {
      for (uint32_t j = 0; j < ts_node_named_child_count(c); j++) {
        TSNode d = ts_node_named_child(c, j);
        if (ts_node_symbol(d) == cx->s->function_definition) add_kernel(cx, d, extern_c, ns, c);
      }
    } else if (sym == cx->s->linkage_specification) {
      TSNode body = ts_node_child_by_field_name(c, "body", 4);
      TSNode value = ts_node_child_by_field_name(c, "value", 5);
      bool is_c = !ts_node_is_null(value) && kr_node_text_is(cx->t, value, "\"C\"");
      if (ts_node_is_null(body)) continue;
      if (ts_node_symbol(body) == cx->s->function_definition)
        add_kernel(cx, body, is_c || extern_c, ns, none);
      else
        walk_top(cx, body, is_c || extern_c, ns);
    } else if (sym == cx->s->namespace_definition) {
      TSNode name = ts_node_child_by_field_name(c, "name", 4);
      TSNode body = ts_node_child_by_field_name(c, "body", 4);
      const char *inner = ns;
      if (!ts_node_is_null(name))
        inner = ns ? kr_arena_printf(cx->a, "%s::%s", ns, text(cx, name)) : text(cx, name);
      if (!ts_node_is_null(body)) walk_top(cx, body, extern_c, inner);
    } else if (sym == cx->s->declaration_list || sym == cx->s->preproc_if ||
               sym == cx->s->preproc_ifdef || strncmp(ts_node_type(c), "preproc_el", 10) == 0) {
      walk_top(cx, c, extern_c, ns);
    }
  }
  kr_children_end(&it);
}

/* ---- Launch sites ------------------------------------------------------------------------------- */

static void add_launch(Ctx *cx, TSNode call, TSNode cfg, const char *fn) {
  KrLaunch l = {.node = call, .in_function = fn};
  TSNode callee = ts_node_child_by_field_name(call, "function", 8);
  if (!ts_node_is_null(callee) && ts_node_symbol(callee) == cx->s->template_function) {
    TSNode name = ts_node_child_by_field_name(callee, "name", 4);
    TSNode args = ts_node_child_by_field_name(callee, "arguments", 9);
    l.kernel = flat_text(cx, name);
    char *s = flat_text(cx, args);
    size_t n = strlen(s);
    l.template_args = n >= 2 ? kr_arena_strndup(cx->a, s + 1, n - 2) : s;
  } else {
    l.kernel = ts_node_is_null(callee) ? "" : flat_text(cx, callee);
  }
  const char **slots[4] = {&l.grid, &l.block, &l.shmem, &l.stream};
  uint32_t n = ts_node_named_child_count(cfg);
  for (uint32_t i = 0; i < n && i < 4; i++) *slots[i] = flat_text(cx, ts_node_named_child(cfg, i));
  if (!l.grid) l.grid = "";
  if (!l.block) l.block = "";
  TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
  if (!ts_node_is_null(args))
    for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
      TSNode a = ts_node_named_child(args, i);
      if (ts_node_symbol(a) == cx->s->comment) continue;
      const char *s = flat_text(cx, a);
      kr_vec_push(cx->a, &l.args, s);
    }
  set_pos(call, &l.line, &l.col, &l.span);
  kr_vec_push(cx->a, &cx->m->launches, l);
}

/* Launch sites are found from the text: each `<<<` is looked up in the tree and kept when it
 * opens a kernel_call_syntax (not a comment, a string or a shift). This visits a few nodes per
 * launch instead of the whole tree. */
static void find_launches(Ctx *cx, TSNode root) {
  const char *text = cx->t->src->text;
  for (const char *p = strstr(text, "<<<"); p; p = strstr(p + 3, "<<<")) {
    uint32_t at = (uint32_t)(p - text);
    TSNode n = ts_node_descendant_for_byte_range(root, at, at + 3);
    for (int up = 0; up < 3 && !ts_node_is_null(n) && ts_node_symbol(n) != cx->s->kernel_call_syntax; up++)
      n = ts_node_parent(n);
    if (ts_node_is_null(n) || ts_node_symbol(n) != cx->s->kernel_call_syntax) continue;
    TSNode call = ts_node_parent(n);
    if (ts_node_is_null(call) || ts_node_symbol(call) != cx->s->call_expression) continue;
    const char *fn = NULL;
    for (TSNode f = ts_node_parent(call); !ts_node_is_null(f); f = ts_node_parent(f)) {
      if (ts_node_symbol(f) != cx->s->function_definition) continue;
      TSNode fd = function_declarator(cx, f);
      if (!ts_node_is_null(fd)) fn = flat_text(cx, ts_node_child_by_field_name(fd, "declarator", 10));
      break;
    }
    add_launch(cx, call, n, fn);
  }
}

KrModel *kr_model_new(const KrTree *tree, KrArena *arena) {
  KrModel *m = kr_arena_alloc(arena, sizeof *m);
  m->tree = tree;
  Ctx cx = {.t = tree, .s = &tree->sym, .a = arena, .m = m};
  TSNode root = kr_tree_root(tree);
  walk_top(&cx, root, false, NULL);
  find_launches(&cx, root);
  return m;
}

bool kr_kernel_generic(const KrKernel *k) { return k->is_template && !(k->template_params && !k->template_params[0]); }

/* The kernel whose plain or qualified name is name[0, n). */
static const KrKernel *find_n(const KrModel *self, const char *name, size_t n) {
  for (size_t i = 0; i < self->kernels.len; i++) {
    const KrKernel *k = &self->kernels.data[i];
    if ((strncmp(k->name, name, n) == 0 && k->name[n] == '\0') ||
        (strncmp(k->qualified_name, name, n) == 0 && k->qualified_name[n] == '\0'))
      return k;
  }
  return NULL;
}

const KrKernel *kr_model_find(const KrModel *self, const char *name) { return find_n(self, name, strlen(name)); }

/* Whether a and b are the same text but for blanks. */
static bool same_but_blanks(const char *a, const char *b) {
  for (;;) {
    while (isspace((unsigned char)*a)) a++;
    while (isspace((unsigned char)*b)) b++;
    if (*a != *b) return false;
    if (!*a) return true;
    a++, b++;
  }
}

const KrKernel *kr_model_find_launch(const KrModel *self, const char *callee) {
  if (strncmp(callee, "::", 2) == 0) callee += 2;
  const char *lt = strchr(callee, '<');
  if (lt)
    for (size_t i = 0; i < self->kernels.len; i++) {
      const KrKernel *k = &self->kernels.data[i];
      if (k->is_template && !kr_kernel_generic(k) &&
          (same_but_blanks(k->name, callee) || same_but_blanks(k->qualified_name, callee)))
        return k;
    }
  size_t n = lt ? (size_t)(lt - callee) : strlen(callee);
  while (n && isspace((unsigned char)callee[n - 1])) n--;
  return find_n(self, callee, n);
}

const char *kr_model_kernel_names(const KrModel *self, KrArena *arena) {
  if (self->kernels.len == 0) return "none";
  KrBuf b = {0};
  for (size_t i = 0; i < self->kernels.len; i++) {
    if (i) kr_buf_puts(&b, ", ");
    kr_buf_puts(&b, self->kernels.data[i].qualified_name);
  }
  char *s = kr_arena_strndup(arena, b.data, b.len);
  kr_buf_free(&b);
  return s;
}

/* ---- Host function bodies -------------------------------------------------------------------------- */

bool kr_model_in_device(const KrTree *t, TSNode n) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    TSSymbol sym = ts_node_symbol(p);
    if (sym == t->sym.lambda_expression && has_child_symbol(p, t->sym.kw_device)) return true;
    if (sym == t->sym.function_definition)
      return has_child_symbol(p, t->sym.kw_device) || has_child_symbol(p, t->sym.kw_global);
  }
  return false;
}

bool kr_model_launch_kept(const KrTree *t, const KrLaunch *l, const KrSpan *drop, size_t ndrop) {
  if (kr_model_in_device(t, l->node)) return false;
  for (size_t i = 0; i < ndrop; i++)
    if (l->span.start >= drop[i].start && l->span.start < drop[i].end) return false;
  return true;
}

/* Kept whole: device code, constexpr functions (device code may evaluate them), and functions that
 * run when the module is loaded (__attribute__((constructor)), destructor), like global initialisers. */
static bool is_device_function(const KrTree *t, TSNode def) {
  if (has_child_symbol(def, t->sym.kw_global) || has_child_symbol(def, t->sym.kw_device)) return true;
  TSNode body = ts_node_child_by_field_name(def, "body", 4);
  uint32_t hs = ts_node_start_byte(def), he = ts_node_is_null(body) ? ts_node_end_byte(def) : ts_node_start_byte(body);
  for (uint32_t i = hs; i + 10 <= he; i++)
    if (memcmp(t->src->text + i, "constructor", 11) == 0 || memcmp(t->src->text + i, "destructor", 10) == 0) return true;
  /* constexpr functions may be evaluated in device code (--expt-relaxed-constexpr): kept */
  uint32_t k = ts_node_child_count(def);
  for (uint32_t i = 0; i < k; i++) {
    TSNode c = ts_node_child(def, i);
    uint32_t s = ts_node_start_byte(c), e = ts_node_end_byte(c);
    if (e - s == 9 && memcmp(t->src->text + s, "constexpr", 9) == 0) return true;
  }
  return false;
}

static const char *function_name(const KrTree *t, TSNode def, KrArena *a) {
  TSNode d = ts_node_child_by_field_name(def, "declarator", 10);
  while (!ts_node_is_null(d) && ts_node_symbol(d) != t->sym.function_declarator)
    d = ts_node_child_by_field_name(d, "declarator", 10);
  if (ts_node_is_null(d)) return NULL;
  TSNode n = ts_node_child_by_field_name(d, "declarator", 10);
  if (ts_node_is_null(n)) return NULL;
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  const char *colon = NULL;   /* `ns::f` and `Cls::f`: the last part */
  for (uint32_t i = s; i + 1 < e; i++)
    if (t->src->text[i] == ':' && t->src->text[i + 1] == ':') colon = t->src->text + i + 2;
  return colon ? kr_arena_strndup(a, colon, (size_t)(t->src->text + e - colon)) : kr_arena_strndup(a, t->src->text + s, e - s);
}

typedef KrVec(const char *) NameVec;

/* The identifiers of t[s, e) followed by '(' (calls, as far as text shows), into names. */
static void called_names(const char *t, uint32_t s, uint32_t e, KrArena *a, NameVec *names) {
  for (uint32_t i = s; i < e; i++) {
    char c = t[i];
    bool start = (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) &&
                 (i == s || !(t[i - 1] == '_' || (t[i - 1] >= 'a' && t[i - 1] <= 'z') || (t[i - 1] >= 'A' && t[i - 1] <= 'Z') ||
                              (t[i - 1] >= '0' && t[i - 1] <= '9')));
    if (!start) continue;
    uint32_t j = i;
    while (j < e && (t[j] == '_' || (t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') || (t[j] >= '0' && t[j] <= '9')))
      j++;
    uint32_t k = j;
    while (k < e && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n')) k++;
    if (k < e && (t[k] == '(' || t[k] == '<')) kr_vec_push(a, names, kr_arena_strndup(a, t + i, j - i));
    i = j;
  }
}

/* A host function's body and its name (the last part of `ns::f`; NULL when it has none). */
typedef struct HostBody {
  KrSpan body;
  const char *name;
  bool kept;
} HostBody;

typedef struct HostWalk {
  const KrTree *t;
  KrArena *a;
  KrVec(HostBody) insts;     /* explicit instantiations of host templates (`template void f<float>(…);`) */
  KrVec(HostBody) bodies;   /* in the order of the text */
  NameVec work;             /* names of functions to keep, whose bodies' calls are still to follow */
} HostWalk;

/* Records the host function bodies under scope (at file scope, in namespaces, extern "C" blocks,
 * templates and #if branches) and, at file scope, the names the global initialisers call (they run
 * when the module is loaded). */
static void host_walk(HostWalk *w, TSNode scope, bool file_scope) {
  const KrTree *t = w->t;
  uint32_t n = ts_node_named_child_count(scope);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_named_child(scope, i);
    TSSymbol s = ts_node_symbol(c);
    if (s == t->sym.function_definition) {
      TSNode body = ts_node_child_by_field_name(c, "body", 4);
      if (ts_node_is_null(body) || ts_node_symbol(body) != t->sym.compound_statement || is_device_function(t, c)) continue;
      HostBody h = {{ts_node_start_byte(body), ts_node_end_byte(body)}, function_name(t, c, w->a), false};
      kr_vec_push(w->a, &w->bodies, h);
    } else if (s == t->sym.declaration && file_scope) {
      called_names(t->src->text, ts_node_start_byte(c), ts_node_end_byte(c), w->a, &w->work);
    } else if (strcmp(ts_node_type(c), "template_instantiation") == 0) {
      const char *name = function_name(t, c, w->a);
      char *lt = name ? strchr(name, '<') : NULL;
      if (lt) *lt = '\0';
      HostBody h = {{ts_node_start_byte(c), ts_node_end_byte(c)}, name, false};
      kr_vec_push(w->a, &w->insts, h);
    } else if (s == t->sym.namespace_definition || s == t->sym.linkage_specification || s == t->sym.template_declaration ||
               s == t->sym.preproc_if || s == t->sym.preproc_ifdef || s == t->sym.preproc_else ||
               s == t->sym.preproc_elif || s == t->sym.declaration_list) {
      TSNode body = ts_node_child_by_field_name(c, "body", 4);
      host_walk(w, ts_node_is_null(body) ? c : body, false);
    }
  }
}

void kr_model_host_bodies(const KrTree *tree, const char *const *keep, size_t nkeep, KrArena *arena, KrSpan **spans,
                          size_t *n) {
  /* Kept: the functions named in keep, those the file's global initialisers call, and those any kept
   * body calls, followed through a worklist of names. */
  HostWalk w = {.t = tree, .a = arena};
  for (size_t i = 0; i < nkeep; i++) kr_vec_push(arena, &w.work, keep[i]);
  host_walk(&w, kr_tree_root(tree), true);
  while (w.work.len) {
    const char *name = w.work.data[--w.work.len];
    for (size_t i = 0; i < w.bodies.len; i++) {
      HostBody *h = &w.bodies.data[i];
      if (h->kept || !h->name || strcmp(h->name, name) != 0) continue;
      h->kept = true;
      called_names(tree->src->text, h->body.start, h->body.end, arena, &w.work);
    }
  }
  KrVec(KrSpan) dropped = {0};
  for (size_t i = 0; i < w.bodies.len; i++)
    if (!w.bodies.data[i].kept) kr_vec_push(arena, &dropped, w.bodies.data[i].body);
  /* An explicit instantiation of a host template whose body goes would instantiate a declaration:
   * it goes too (a kernel template's stays: kernels keep their bodies). */
  for (size_t i = 0; i < w.insts.len; i++) {
    const char *name = w.insts.data[i].name;
    bool gone = false, kept = false;
    for (size_t j = 0; name && j < w.bodies.len; j++)
      if (w.bodies.data[j].name && strcmp(w.bodies.data[j].name, name) == 0) {
        gone = gone || !w.bodies.data[j].kept;
        kept = kept || w.bodies.data[j].kept;
      }
    if (gone && !kept) kr_vec_push(arena, &dropped, w.insts.data[i].body);
  }
  *spans = dropped.data;
  *n = dropped.len;
}

char *kr_model_drop_host_bodies(const KrTree *tree, const char *text, size_t len, const char *const *keep, size_t nkeep,
                                KrArena *arena) {
  KrSpan *sp;
  size_t n;
  kr_model_host_bodies(tree, keep, nkeep, arena, &sp, &n);
  char *r = kr_arena_strndup(arena, text, len);
  for (size_t i = 0; i < n; i++) {
    if (sp[i].end > len) continue;
    r[sp[i].start] = ';';
    for (uint32_t k = sp[i].start + 1; k < sp[i].end; k++)
      if (r[k] != '\n') r[k] = ' ';
  }
  return r;
}
