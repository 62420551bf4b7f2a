/* frontend/uniform.c: expressions that are the same for every thread of the launch (uniform.h).
 * One walk over the kernel collects every identifier it assigns, increments or takes the address
 * of; a value is then uniform when it is built, through arithmetic, loads and value functions,
 * from names none of which is in that list and none of which depends on the thread. */
#include "frontend/uniform.h"

#include "frontend/access.h"

#include <string.h>

struct KrUniform {
  const KrTree *t;
  const KrKernel *k;
  KrArena *a;
  KrVec(TSNode) muts;   /* identifiers the kernel assigns, increments or takes the address of */
};

static bool op_is(KrUniform *u, TSNode n, const char *op) {
  return kr_node_operator_is(u->t, n, op);
}

static void collect_muts(KrUniform *u, TSNode n) {
  const KrSyms *s = &u->t->sym;
  TSSymbol sym = ts_node_symbol(n);
  TSNode t = {0};
  if (sym == s->assignment_expression) t = kr_node_field(n, "left");
  else if (sym == s->update_expression) t = kr_node_field(n, "argument");
  else if (sym == s->pointer_expression && op_is(u, n, "&")) t = kr_node_field(n, "argument");
  t = kr_node_strip_parens(u->t, t);
  if (!ts_node_is_null(t) && ts_node_symbol(t) == s->identifier) kr_vec_push(u->a, &u->muts, t);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
    collect_muts(u, ts_node_named_child(n, i));
}

KrUniform *kr_uniform_new(const KrTree *tree, const KrKernel *kernel, KrArena *arena) {
  KrUniform *u = kr_arena_alloc(arena, sizeof *u);
  memset(u, 0, sizeof *u);
  u->t = tree;
  u->k = kernel;
  u->a = arena;
  collect_muts(u, kernel->body);
  return u;
}

bool kr_uniform_collective(const char *name) {
  static const char *const prefixes[] = {"__sync", "__shfl", "__ballot", "__any", "__all",
                                         "__activemask", "__match", "__reduce", NULL};
  for (size_t i = 0; prefixes[i]; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) return true;
  return false;
}

static bool mutated(KrUniform *u, KrBinding b) {
  for (size_t i = 0; i < u->muts.len; i++)
    if (kr_binding_same(kr_resolve(u->t, u->k, u->muts.data[i]), b)) return true;
  return false;
}

/* Records the first (innermost) construct that is not uniform. */
static bool no(TSNode n, TSNode *culprit) {
  if (culprit && ts_node_is_null(*culprit)) *culprit = n;
  return false;
}

static bool uniform(KrUniform *u, TSNode n, const KrBinding *var, TSNode *culprit, int depth) {
  const KrSyms *s = &u->t->sym;
  TSSymbol sym = ts_node_symbol(n);
  if (depth > 32) return no(n, culprit);
  if (sym == s->number_literal || sym == s->sizeof_expression || sym == s->lit_true ||
      sym == s->lit_false || sym == s->char_literal)
    return true;
  if (sym == s->identifier) {
    if (kr_node_text_is(u->t, n, "threadIdx") || kr_node_text_is(u->t, n, "blockIdx"))
      return no(n, culprit);
    KrBinding b = kr_resolve(u->t, u->k, n);
    if (b.kind == KR_BIND_LAMBDA || (var && kr_binding_same(b, *var))) return no(n, culprit);
    if (b.kind == KR_BIND_NONE) return true; /* a global, macro or template constant */
    if (mutated(u, b)) return no(n, culprit);
    if (b.kind == KR_BIND_PARAM) return true;
    if (ts_node_is_null(b.value)) return no(n, culprit);
    return uniform(u, b.value, var, culprit, depth + 1) || no(n, culprit);
  }
  if (sym == s->field_expression && op_is(u, n, ".")) {
    TSNode arg = kr_node_field(n, "argument");
    if (kr_node_text_is(u->t, arg, "blockDim") || kr_node_text_is(u->t, arg, "gridDim"))
      return true;
  }
  if (sym == s->call_expression) {
    TSNode fn = kr_node_field(n, "function"), args = kr_node_field(n, "arguments");
    const char *name = ts_node_is_null(fn) ? "" : kr_node_text(u->t, fn, u->a);
    if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0 ||
        kr_uniform_collective(name) || !ts_node_is_null(kr_tree_function(u->t, name)) ||
        (ts_node_symbol(fn) != s->primitive_type && !kr_access_value_function(name)))
      return no(n, culprit);
    return uniform(u, args, var, culprit, depth + 1);
  }
  if (sym == s->pointer_expression && op_is(u, n, "&")) return no(n, culprit);
  const char *type = ts_node_type(n);
  if (sym != s->binary_expression && sym != s->unary_expression &&
      sym != s->parenthesized_expression && sym != s->conditional_expression &&
      sym != s->cast_expression && sym != s->subscript_expression &&
      sym != s->pointer_expression && sym != s->field_expression && sym != s->argument_list &&
      strcmp(type, "subscript_argument_list") != 0 && sym != s->type_descriptor)
    return no(n, culprit);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode c = ts_node_named_child(n, i);
    TSSymbol cs = ts_node_symbol(c);
    if (cs == s->field_identifier || cs == s->type_qualifier || cs == s->primitive_type ||
        cs == s->type_identifier || cs == s->abstract_pointer_declarator || cs == s->comment)
      continue;
    if (!uniform(u, c, var, culprit, depth + 1)) return false;
  }
  return true;
}

bool kr_uniform(KrUniform *self, TSNode expr, TSNode *culprit) {
  if (culprit) *culprit = (TSNode){0};
  return uniform(self, expr, NULL, culprit, 0);
}

bool kr_uniform_except(KrUniform *self, TSNode expr, KrBinding varying, TSNode *culprit) {
  if (culprit) *culprit = (TSNode){0};
  return uniform(self, expr, &varying, culprit, 0);
}
