/* passes/join_declarations.c: a local declared without a value declared where it gets its first one.
 *
 * Before:  int col, row;                       After:  int col = blockIdx.x * blockDim.x + threadIdx.x;
 *          float sum;                                  int row = blockIdx.y * blockDim.y + threadIdx.y;
 *          col = blockIdx.x * blockDim.x + …;          if (row < M && col < N) {
 *          row = blockIdx.y * blockDim.y + …;            float sum = 0.0f;
 *          if (row < M && col < N) {                     for (int k = 0; k < K; k++) …
 *            sum = 0.0f;
 *            for (k = 0; k < K; k++) …            (k, declared `int k;` above, now in the loop's header)
 *
 * C-style kernels declare their locals at the top and assign them later. The nest reads a local by
 * the value it is declared with, so it refuses such a kernel ("declared without a value"), and the
 * schedule passes with it. This pass moves each such declaration to its local's first assignment:
 * `x = e;` becomes `T x = e;`, and `for (x = e; …)` becomes `for (T x = e; …)`. Where the first
 * statement that names the local is a block, an if (each branch that names it, all of them braced)
 * or a loop whose header does not name it, the declaration moves into it and the same rule applies
 * there; in a loop's body each iteration then has its own local, which it assigns before it reads.
 * The local keeps its type and declarator (`float *p;` stays a pointer); the declaration loses the
 * names moved, and goes when none is left.
 *
 * Requires: the local is a plain or pointer variable (no array, no reference), automatic (not static,
 * extern or __shared__), declared by a statement of a block; the first statement after it that
 * names it assigns it with `=` a value that does not read it (the for loop's initializer alike);
 * nothing after that statement, in the block that declared the local, names it when the
 * declaration moves into a nested statement (or into a for loop's header); the kernel has no goto.
 * A name counts wherever the identifier appears, shadowing declarations included.
 * Params: locals (names; default: every local so declared that can move). Precision: exact. */
#include <stdarg.h>
#include <string.h>

#include "frontend/scope.h"
#include "passes/pass.h"

static const KrParamSpec params[] = {
  {.name = "locals", .type = KR_PARAM_NAMES, .def = "all",
   .doc = "locals declared without a value to declare at their first assignment (default: all that can)"},
};

/* Where one local gets a declaration: an assignment statement, or a for loop's initializer. */
typedef struct Place {
  TSNode at;            /* the expression statement, or the initializer */
  TSNode value;         /* the assigned value */
  bool statement;       /* at is `x = e;` (else the initializer `x = e`) */
} Place;

typedef struct Local {
  const char *name;
  TSNode decl;          /* the declaration statement */
  TSNode declarator;    /* its declarator (identifier or pointer_declarator) */
  const char *why;      /* why it cannot move (NULL: it can) */
  uint32_t why_at;
  KrVec(Place) places;
} Local;

typedef struct Joiner {
  KrPassCtx *cx;
  const KrSyms *s;
  KrVec(Local) locals;
  bool has_goto;
} Joiner;

static TSNode field(TSNode n, const char *f) { return kr_node_field(n, f); }
static bool is(const Joiner *j, TSNode n, TSSymbol y) { return !ts_node_is_null(n) && ts_node_symbol(n) == y; }

/* How many times n holds the identifier `name`. */
static int count_names(const Joiner *j, TSNode n, const char *name, int depth) {
  if (ts_node_is_null(n) || depth > 512) return 0;
  if (ts_node_symbol(n) == j->s->identifier) return kr_node_text_is(j->cx->tree, n, name);
  int c = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) c += count_names(j, ts_node_named_child(n, i), name, depth + 1);
  return c;
}

/* Whether `name` appears as an identifier anywhere in n. */
static bool names(const Joiner *j, TSNode n, const char *name) { return count_names(j, n, name, 0) > 0; }

/* `x = e` with e not reading x: its value, else a null node. */
static TSNode assigns(const Joiner *j, TSNode e, const char *name) {
  e = kr_node_strip_parens(j->cx->tree, e);
  if (!is(j, e, j->s->assignment_expression) || !kr_node_operator_is(j->cx->tree, e, "=")) return (TSNode){0};
  TSNode left = kr_node_strip_parens(j->cx->tree, field(e, "left")), right = field(e, "right");
  if (!is(j, left, j->s->identifier) || !kr_node_text_is(j->cx->tree, left, name) || names(j, right, name))
    return (TSNode){0};
  return right;
}

/* A statement's text as a message shows it: its first line, cut at 60 bytes. */
static const char *head(const Joiner *j, TSNode st) {
  const char *t = kr_pass_text(j->cx, st);
  size_t n = strcspn(t, "\n");
  bool cut = t[n] != '\0' || n > 60;
  if (n > 60) n = 60;
  return cut ? kr_arena_printf(j->cx->arena, "%.*s …", (int)n, t) : t;
}

static bool fail(Joiner *j, Local *lo, TSNode at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool fail(Joiner *j, Local *lo, TSNode at, const char *fmt, ...) {
  if (!lo->why) {
    va_list ap;
    va_start(ap, fmt);
    lo->why = kr_arena_vprintf(j->cx->arena, fmt, ap);
    va_end(ap);
    lo->why_at = ts_node_start_byte(at);
  }
  return false;
}

static bool in_block(Joiner *j, Local *lo, TSNode block, uint32_t after, int depth);

/* A loop's body, which names the local: a block, in which each iteration declares its own. */
static bool loop_body(Joiner *j, Local *lo, TSNode body, int depth) {
  if (!is(j, body, j->s->compound_statement))
    return fail(j, lo, body, "the body of a loop, '%s', names it and has no braces", head(j, body));
  return in_block(j, lo, body, 0, depth + 1);
}

/* Statement st names the local, and no earlier statement of its block left it a value st could read:
 * st assigns it (the declaration goes there, *done), or the declarations go into st, which leaves no
 * value the statements after it read (they start again). */
static bool into(Joiner *j, Local *lo, TSNode st, bool *done, int depth) {
  const KrSyms *s = j->s;
  const char *name = lo->name;
  *done = false;
  if (depth > 256) return fail(j, lo, st, "%s", "it is nested too deeply");
  if (is(j, st, s->expression_statement)) {
    TSNode v = assigns(j, ts_node_named_child(st, 0), name);
    if (ts_node_is_null(v))
      return fail(j, lo, st, "'%s' names it where it has no value yet, and is not an assignment of a value that "
                             "does not read it", head(j, st));
    Place p = {.at = st, .value = v, .statement = true};
    kr_vec_push(j->cx->arena, &lo->places, p);
    return *done = true;
  }
  if (is(j, st, s->compound_statement)) return in_block(j, lo, st, 0, depth + 1);
  if (is(j, st, s->for_statement)) {
    TSNode init = field(st, "initializer");
    TSNode v = is(j, init, s->declaration) ? (TSNode){0} : assigns(j, init, name);
    if (!ts_node_is_null(v)) {   /* `for (x = e; …)`: the loop's own local */
      Place p = {.at = init, .value = v};
      kr_vec_push(j->cx->arena, &lo->places, p);
      return true;
    }
    if (names(j, init, name) || names(j, field(st, "condition"), name) || names(j, field(st, "update"), name))
      return fail(j, lo, st, "the header of the loop '%s' names it other than as its initializer's only assignment",
                  head(j, st));
    return loop_body(j, lo, field(st, "body"), depth);
  }
  if (is(j, st, s->while_statement) || is(j, st, s->do_statement)) {
    if (names(j, field(st, "condition"), name))
      return fail(j, lo, st, "the condition of the loop '%s' names it", head(j, st));
    return loop_body(j, lo, field(st, "body"), depth);
  }
  if (is(j, st, s->if_statement)) {
    if (names(j, field(st, "condition"), name))
      return fail(j, lo, st, "the condition of '%s' names it", head(j, st));
    TSNode branch[2] = {field(st, "consequence"), field(st, "alternative")};
    if (!ts_node_is_null(branch[1]) && ts_node_named_child_count(branch[1]) > 0)
      branch[1] = ts_node_named_child(branch[1], 0);   /* the else clause's statement */
    for (int b = 0; b < 2; b++) {
      if (!names(j, branch[b], name)) continue;
      if (!is(j, branch[b], s->compound_statement) && !is(j, branch[b], s->if_statement))
        return fail(j, lo, branch[b], "a branch without braces, '%s', names it", head(j, branch[b]));
      bool inner;
      if (!into(j, lo, branch[b], &inner, depth + 1)) return false;
    }
    return true;
  }
  return fail(j, lo, st, "'%s' names it, and is not an assignment, a block, an if or a loop", head(j, st));
}

/* The statements of `block` after byte `after` that name the local, in order, until one assigns it
 * (the declaration goes there): each before it gets declarations of its own (into). */
static bool in_block(Joiner *j, Local *lo, TSNode block, uint32_t after, int depth) {
  bool any = false;
  for (uint32_t i = 0; i < ts_node_named_child_count(block); i++) {
    TSNode st = ts_node_named_child(block, i);
    if (ts_node_start_byte(st) < after || !names(j, st, lo->name)) continue;
    bool done;
    if (!into(j, lo, st, &done, depth)) return false;
    if (done) return true;
    any = true;
  }
  return any ? true : fail(j, lo, lo->declarator, "%s", "no statement after its declaration names it");
}

/* ---- The locals declared without a value -------------------------------------------------------- */

/* The identifier a declarator without a value declares: `x` or `*x` (any depth of pointers and
 * qualifiers), else a null node with *why set (an array, a reference) or not (a value given). */
static TSNode declared(const Joiner *j, TSNode d, const char **why) {
  const KrSyms *s = j->s;
  *why = NULL;
  if (is(j, d, s->init_declarator)) return (TSNode){0};
  TSNode id = d;
  while (is(j, id, s->pointer_declarator)) {
    TSNode inner = field(id, "declarator");
    id = inner;
  }
  if (is(j, id, s->identifier)) return id;
  if (is(j, id, s->array_declarator)) {
    *why = "it is an array, which is not assigned as a whole";
    while (is(j, id, s->array_declarator)) id = field(id, "declarator");
    return is(j, id, s->identifier) ? id : (TSNode){0};
  }
  if (!ts_node_is_null(id)) *why = "its declarator is not a plain variable or pointer";
  return (TSNode){0};
}

static void find_locals(Joiner *j, TSNode n, int depth) {
  const KrSyms *s = j->s;
  if (depth > 512) return;
  if (is(j, n, s->goto_statement)) j->has_goto = true;
  if (is(j, n, s->declaration) && is(j, ts_node_parent(n), s->compound_statement)) {
    KrScope *sc = kr_pass_scope(j->cx);
    const char *storage = kr_scope_has_word(sc, n, "static") ? "static"
                          : kr_scope_has_word(sc, n, "extern") ? "extern"
                          : kr_scope_has_word(sc, n, "__shared__") ? "__shared__" : NULL;
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
      const char *f = ts_node_field_name_for_child(n, i);
      if (!f || strcmp(f, "declarator") != 0) continue;
      TSNode d = ts_node_child(n, i);
      const char *why;
      TSNode id = declared(j, d, &why);
      if (ts_node_is_null(id) && !why) continue;   /* declared with a value */
      Local lo = {.name = ts_node_is_null(id) ? kr_pass_text(j->cx, d) : kr_pass_text(j->cx, id), .decl = n,
                  .declarator = d, .why = why, .why_at = ts_node_start_byte(d)};
      if (!lo.why && storage) lo.why = kr_arena_printf(j->cx->arena, "it is declared %s, not automatic", storage);
      kr_vec_push(j->cx->arena, &j->locals, lo);
    }
    return;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) find_locals(j, ts_node_named_child(n, i), depth + 1);
}

static KrStatus analyse(KrPassCtx *cx, Joiner *j) {
  *j = (Joiner){.cx = cx, .s = &cx->tree->sym};
  const KrKernel *k = cx->kernel;
  TSNode body = field(k->node, "body");
  if (ts_node_is_null(body)) return kr_pass_skip(cx, k->span.start, "kernel '%s' has no body", k->name);
  find_locals(j, body, 0);
  if (j->locals.len == 0)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' declares no local without a value", k->name);
  const KrValue *chosen = kr_pass_arg(cx, "locals");
  for (size_t i = 0; i < chosen->names.len; i++) {
    bool found = false;
    for (size_t l = 0; l < j->locals.len; l++) found |= strcmp(j->locals.data[l].name, chosen->names.data[i]) == 0;
    if (!found) {
      KrBuf all = {0};
      for (size_t l = 0; l < j->locals.len; l++) kr_buf_printf(&all, "%s%s", all.len ? ", " : "", j->locals.data[l].name);
      const char *list = kr_arena_strdup(cx->arena, all.data);
      kr_buf_free(&all);
      return kr_pass_skip(cx, k->span.start, "kernel '%s' has no local '%s' declared without a value (those: %s)",
                          k->name, chosen->names.data[i], list);
    }
  }
  size_t movable = 0;
  const Local *first = NULL;
  for (size_t l = 0; l < j->locals.len; l++) {
    Local *lo = &j->locals.data[l];
    if (!kr_pass_names_has(chosen, lo->name)) continue;
    if (!lo->why && j->has_goto) lo->why = "the kernel has a goto, which could jump past the new declaration";
    if (!lo->why && count_names(j, lo->decl, lo->name, 0) > 1)
      lo->why = "its own declaration names it again", lo->why_at = ts_node_start_byte(lo->decl);
    if (!lo->why) in_block(j, lo, ts_node_parent(lo->decl), ts_node_end_byte(lo->decl), 0);
    if (lo->why && chosen->names.len)
      return kr_pass_skip(cx, lo->why_at, "local '%s' cannot be declared at its first assignment: %s", lo->name, lo->why);
    if (!lo->why) movable++;
    else if (!first) first = lo;
  }
  if (!movable)
    return kr_pass_skip(cx, first->why_at, "local '%s' cannot be declared at its first assignment: %s", first->name,
                        first->why);
  return KR_OK;
}

static KrStatus check(KrPassCtx *cx) {
  Joiner j;
  return analyse(cx, &j);
}

/* ---- Apply ------------------------------------------------------------------------------------ */

static bool moves(const Joiner *j, const Local *lo) {
  return !lo->why && lo->places.len && kr_pass_names_has(kr_pass_arg(j->cx, "locals"), lo->name);
}

/* The declaration statement `decl` with the locals that move taken out: removed with its line when
 * none is left, else written again with the others. */
static void shrink_declaration(Joiner *j, TSNode decl, const char *type) {
  KrPassCtx *cx = j->cx;
  KrBuf rest = {0};
  for (uint32_t i = 0; i < ts_node_child_count(decl); i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (!f || strcmp(f, "declarator") != 0) continue;
    TSNode d = ts_node_child(decl, i);
    bool moved = false;
    for (size_t l = 0; l < j->locals.len; l++) moved |= ts_node_eq(j->locals.data[l].declarator, d) && moves(j, &j->locals.data[l]);
    if (!moved) kr_buf_printf(&rest, "%s%s", rest.len ? ", " : "", kr_pass_text(cx, d));
  }
  if (rest.len) kr_pass_replace_node(cx, decl, kr_arena_printf(cx->arena, "%s%s;", type, rest.data));
  else kr_pass_remove_statement(cx, decl);
  kr_buf_free(&rest);
}

static KrStatus apply(KrPassCtx *cx) {
  Joiner j;
  KrStatus st = analyse(cx, &j);
  if (st != KR_OK) return st;
  for (size_t l = 0; l < j.locals.len; l++) {
    const Local *lo = &j.locals.data[l];
    if (!moves(&j, lo)) continue;
    /* The type as written before the first declarator ("unsigned int ", "float "). */
    uint32_t ds = ts_node_start_byte(lo->decl), fs = ds;
    for (uint32_t i = 0; i < ts_node_child_count(lo->decl); i++) {
      const char *f = ts_node_field_name_for_child(lo->decl, i);
      if (f && strcmp(f, "declarator") == 0) {
        fs = ts_node_start_byte(ts_node_child(lo->decl, i));
        break;
      }
    }
    const char *type = kr_arena_printf(cx->arena, "%.*s", (int)(fs - ds), cx->src->text + ds);
    bool first_of_decl = true;   /* the declaration is rewritten once, by its first local that moves */
    for (size_t m = 0; m < l; m++) first_of_decl &= !(ts_node_eq(j.locals.data[m].decl, lo->decl) && moves(&j, &j.locals.data[m]));
    if (first_of_decl) shrink_declaration(&j, lo->decl, type);
    const char *declarator = kr_pass_text(cx, lo->declarator);
    for (size_t p = 0; p < lo->places.len; p++) {
      const Place *pl = &lo->places.data[p];
      kr_pass_replace_node(cx, pl->at, kr_arena_printf(cx->arena, "%s%s = %s%s", type, declarator,
                                                       kr_pass_text(cx, pl->value), pl->statement ? ";" : ""));
    }
  }
  return KR_OK;
}

const KrPass kr_pass_join_declarations = {
  .name = "join_declarations",
  .summary = "a local declared without a value (int i; … i = e;) declared at its first assignment (int i = e;)",
  .doc = "Moves the declaration of each local declared without a value to the statement that first assigns "
         "it: `x = e;` becomes `T x = e;` and `for (x = e; …)` becomes `for (T x = e; …)`, into nested "
         "blocks, ifs and loops where the first statement naming it is one and nothing after names it, so "
         "that the nest reads the kernel. Refuses arrays, static, extern and __shared__ locals, a first use "
         "that reads the local, and kernels with a goto.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .before_schedule = true,
  .search = {.prepares = true},
  .check = check,
  .apply = apply,
};
