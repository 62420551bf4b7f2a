/* passes/restrict.c: mark pointer parameters __restrict__, and const where never written.
 *
 * Before:  __global__ void saxpy(int n, float a, float *x, float *y)
 * After:   __global__ void saxpy(int n, float a, const float *__restrict__ x,
 *                                float *__restrict__ y)
 *
 * `__restrict__` tells nvcc that no other pointer reaches the same memory, so loads can be
 * reordered, kept in registers and routed through the read-only cache. That is a promise about
 * the caller, recorded as the assumption "pointer parameters x, y do not alias". `const` is added
 * to the pointee only where the read/write sets (frontend/access.h) are sure the kernel never
 * writes through the pointer and every alias, cast and helper parameter it flows into would still
 * compile with a const pointee; an unsure pointer gets __restrict__ only. const is also left out
 * when the file declares the kernel a second time (a prototype or explicit instantiation would no
 * longer match the definition).
 *
 * Requires: the selected parameters are pointers declared with `*` (not arrays `float x[]`), and
 * are not reassigned from another pointer (`x = y` would make two restrict pointers reach the
 * same memory; `x += n` is fine).
 * Params: params (names; default: every pointer parameter). Precision: exact. */
#include <string.h>

#include "frontend/access.h"
#include "frontend/affine.h"
#include "passes/pass.h"

static const KrParamSpec params[] = {
  {.name = "params", .type = KR_PARAM_NAMES, .def = "all",
   .doc = "pointer parameters to mark (default: all of them)"},
};

/* ---- Helpers --------------------------------------------------------------------------------- */

static const KrParam *param_named(const KrKernel *k, const char *name) {
  for (size_t i = 0; i < k->params.len; i++)
    if (strcmp(k->params.data[i].name, name) == 0) return &k->params.data[i];
  return NULL;
}

static bool is_pointer(const KrParam *p) {
  return p->pointer_depth > 0 && !p->is_reference && *p->name;
}

static const char *pointer_names(KrPassCtx *cx) {
  KrBuf b = {0};
  for (size_t i = 0; i < cx->kernel->params.len; i++) {
    const KrParam *p = &cx->kernel->params.data[i];
    if (is_pointer(p)) kr_buf_printf(&b, "%s%s", b.len ? ", " : "", p->name);
  }
  char *s = kr_arena_strndup(cx->arena, b.data ? b.data : "none", b.data ? b.len : 4);
  kr_buf_free(&b);
  return s;
}

/* The identifier a parameter declares, and whether a pointer declarator sits right above it
 * (`float *x`, not `float x[]`). */
static TSNode name_node(KrPassCtx *cx, const KrParam *p, bool *under_pointer) {
  TSNode d = ts_node_child_by_field_name(p->node, "declarator", 10);
  TSNode id = kr_declarator_name(cx->tree, d);
  *under_pointer = !ts_node_is_null(id) &&
                   ts_node_symbol(ts_node_parent(id)) == cx->tree->sym.pointer_declarator;
  return id;
}

/* The assignment `x = …` that reassigns parameter x, if its first move is one. */
static TSNode reassignment(KrPassCtx *cx, const KrPtrAccess *pa) {
  TSNode none = {0};
  if (!pa || !pa->moved) return none;
  TSNode n = ts_node_descendant_for_byte_range(kr_tree_root(cx->tree), pa->moved_at, pa->moved_at);
  while (!ts_node_is_null(n) && ts_node_start_byte(n) == pa->moved_at) {
    if (ts_node_symbol(n) == cx->tree->sym.assignment_expression) {
      TSNode op = ts_node_child_by_field_name(n, "operator", 8);
      return kr_node_text_is(cx->tree, op, "=") ? n : none;
    }
    n = ts_node_parent(n);
  }
  return none;
}

/* Does the file declare the kernel anywhere besides its definition? */
static bool declared_elsewhere(KrPassCtx *cx, TSNode n) {
  if (ts_node_eq(n, cx->kernel->node)) return false;
  if (ts_node_symbol(n) == cx->tree->sym.function_declarator) {
    TSNode id = ts_node_child_by_field_name(n, "declarator", 10);
    /* ns::k, k<float> (an explicit instantiation) and ns::k<float> name it too. */
    while (!ts_node_is_null(id) && (ts_node_symbol(id) == cx->tree->sym.qualified_identifier ||
                                    ts_node_symbol(id) == cx->tree->sym.template_function))
      id = ts_node_child_by_field_name(id, "name", 4);
    if (!ts_node_is_null(id) && kr_node_text_is(cx->tree, id, cx->kernel->name)) return true;
  }
  uint32_t c = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < c; i++)
    if (declared_elsewhere(cx, ts_node_named_child(n, i))) return true;
  return false;
}

/* Checks the names the recipe gave; every one must be a pointer parameter. */
static KrStatus check_names(KrPassCtx *cx, const KrValue *names) {
  const KrKernel *k = cx->kernel;
  for (size_t i = 0; i < names->names.len; i++) {
    const char *n = names->names.data[i];
    const KrParam *p = param_named(k, n);
    if (!p)
      return kr_pass_skip(cx, k->span.start,
                          "kernel '%s' has no parameter '%s' (its pointer parameters: %s)",
                          k->name, n, pointer_names(cx));
    if (!is_pointer(p))
      return kr_pass_skip(cx, p->span.start,
                          "parameter '%s' of kernel '%s' is not a pointer (it is '%s'); pointer "
                          "parameters: %s",
                          n, k->name, p->type, pointer_names(cx));
    bool under_ptr;
    name_node(cx, p, &under_ptr);
    if (!under_ptr)
      return kr_pass_skip(cx, p->span.start,
                          "parameter '%s' is declared as an array ('%s'); write it as a pointer "
                          "to add __restrict__",
                          n, kr_pass_text(cx, p->node));
  }
  return KR_OK;
}

/* ---- Check and apply ------------------------------------------------------------------------- */

static KrStatus check(KrPassCtx *cx) {
  const KrKernel *k = cx->kernel;
  const KrValue *names = kr_pass_arg(cx, "params");
  size_t npointers = 0;
  for (size_t i = 0; i < k->params.len; i++) npointers += is_pointer(&k->params.data[i]);
  if (npointers == 0)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' has no pointer parameters", k->name);
  KrStatus st = check_names(cx, names);
  if (st != KR_OK) return st;
  KrAccess *acc = kr_pass_access(cx);
  bool any = false;
  for (size_t i = 0; i < k->params.len; i++) {
    const KrParam *p = &k->params.data[i];
    bool under_ptr;
    if (!is_pointer(p) || !kr_pass_names_has(names, p->name) || p->is_restrict) continue;
    name_node(cx, p, &under_ptr);
    if (!under_ptr) continue;
    TSNode re = reassignment(cx, kr_access_find(acc, p->name));
    if (!ts_node_is_null(re))
      return kr_pass_skip(cx, ts_node_start_byte(re),
                          "parameter '%s' is reassigned here ('%s'), so it may point into another "
                          "parameter's memory; __restrict__ would be wrong",
                          p->name, kr_pass_text(cx, re));
    any = true;
  }
  if (!any)
    return kr_pass_skip(cx, k->span.start,
                        "every selected pointer parameter of '%s' is already __restrict__ (%s)",
                        k->name, pointer_names(cx));
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  const KrKernel *k = cx->kernel;
  const KrValue *names = kr_pass_arg(cx, "params");
  KrAccess *acc = kr_pass_access(cx);
  bool other_decl = declared_elsewhere(cx, kr_tree_root(cx->tree));
  KrBuf list = {0};
  for (size_t i = 0; i < k->params.len; i++) {
    const KrParam *p = &k->params.data[i];
    bool under_ptr;
    if (!is_pointer(p) || !kr_pass_names_has(names, p->name) || p->is_restrict) continue;
    TSNode id = name_node(cx, p, &under_ptr);
    if (!under_ptr) continue;
    kr_pass_replace(cx, ts_node_start_byte(id), ts_node_start_byte(id), "__restrict__ ");
    kr_buf_printf(&list, "%s%s", list.len ? ", " : "", p->name);
    const KrPtrAccess *pa = kr_access_find(acc, p->name);
    if (pa && pa->sure && !pa->mutable_why && !p->is_const && p->pointer_depth == 1 && !other_decl)
      kr_pass_replace(cx, p->span.start, p->span.start, "const ");
  }
  kr_pass_assume(cx, "pointer parameters %s do not alias one another or other memory the kernel "
                     "accesses", list.data);
  kr_buf_free(&list);
  return KR_OK;
}

const KrPass kr_pass_restrict = {
  .name = "restrict",
  .summary = "mark pointer parameters __restrict__ (and const where never written)",
  .doc = "Adds __restrict__ to the selected pointer parameters, and const to the pointee of those "
         "the kernel provably never writes (read/write sets sure, no alias or cast that needs a "
         "mutable pointee). Records the assumption that the pointers do not alias.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .search = {
    .reason = "mark the pointer parameters of %s __restrict__ (const where only read), so "
              "loads can be reordered and cached",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 130, [KR_SEARCH_COMPUTE] = 150, [KR_SEARCH_LATENCY] = 170},
  },
  .check = check,
  .apply = apply,
};
