/* passes/coalesce.c: put threadIdx.x on the contiguous axis of the output.
 * Before: int row = blockIdx.x * blockDim.x + threadIdx.x;   // x runs down the rows
 *         int col = blockIdx.y * blockDim.y + threadIdx.y;
 *         C[row * N + col] = …;                              // a warp writes 32 rows apart
 * After:  int row = blockIdx.y * blockDim.y + threadIdx.y;
 *         int col = blockIdx.x * blockDim.x + threadIdx.x;   // a warp writes 32 neighbours
 * and the launch's x and y swap (grid and block), so the same threads exist.
 * Requires: the kernel lifts into a nest (frontend/nest.h) with two thread-map axes on x and y,
 * its output's contiguous axis (the coefficient 1 in the written index) is the y axis, and the
 * kernel uses threadIdx, blockIdx, blockDim and gridDim nowhere but in those two definitions.
 * Params: none. Precision: exact (each output is computed by the same arithmetic). */
#include <string.h>

#include "frontend/nest.h"
#include "passes/pass.h"

static const char *const kHw[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

static bool hw_field(const KrPassCtx *cx, TSNode n, char *dim) {
  if (ts_node_symbol(n) != cx->tree->sym.field_expression) return false;
  TSNode arg = ts_node_child_by_field_name(n, "argument", 8), f = ts_node_child_by_field_name(n, "field", 5);
  for (size_t i = 0; i < sizeof kHw / sizeof kHw[0]; i++)
    if (kr_node_text_is(cx->tree, arg, kHw[i])) {
      *dim = cx->src->text[ts_node_start_byte(f)];
      return true;
    }
  return false;
}

/* The top-level declaration of the kernel body that starts at byte `at`. */
static TSNode decl_at(const KrPassCtx *cx, uint32_t at) {
  TSNode body = cx->kernel->body;
  for (uint32_t i = 0; i < ts_node_named_child_count(body); i++) {
    TSNode c = ts_node_named_child(body, i);
    if (ts_node_start_byte(c) == at) return c;
  }
  return (TSNode){0};
}

/* The first hardware index outside the two axis declarations, or a null node. */
static TSNode stray_index(const KrPassCtx *cx, TSNode n, TSNode d0, TSNode d1) {
  char dim;
  if (hw_field(cx, n, &dim) && !kr_node_within(n, d0) && !kr_node_within(n, d1)) return n;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode s = stray_index(cx, ts_node_named_child(n, i), d0, d1);
    if (!ts_node_is_null(s)) return s;
  }
  return (TSNode){0};
}

typedef struct Plan {
  TSNode decl[2];
  const char *out, *axis;
} Plan;

static KrStatus plan(KrPassCtx *cx, Plan *p) {
  const char *why;
  const KrNest *n = kr_pass_nest(cx, &why);
  uint32_t at = ts_node_start_byte(cx->kernel->node);
  if (!n) return kr_pass_skip(cx, cx->an.nest_at, "%s", why);
  int ax[2] = {-1, -1};
  for (size_t i = 0; i < n->axes.len; i++) {
    const KrNestAxis *x = &n->axes.data[i];
    if (x->kind != KR_AXIS_PARALLEL || x->flat) continue;
    if (x->dim == 0 && ax[0] < 0) ax[0] = (int)i;
    if (x->dim == 1 && ax[1] < 0) ax[1] = (int)i;
  }
  if (ax[0] < 0 || ax[1] < 0) return kr_pass_skip(cx, at, "coalesce swaps a thread map on x and y; kernel '%s' has no such pair", cx->kernel->name);
  const KrNestRef *w = NULL;
  for (size_t i = 0; i < n->refs.len && !w; i++)
    if (n->refs.data[i].write && !n->refs.data[i].in_loop) w = &n->refs.data[i];
  if (!w) return kr_pass_skip(cx, at, "kernel '%s' writes no output element outside a loop", cx->kernel->name);
  if (kr_nest_coef_is(&w->index, ax[0], 1))
    return kr_pass_skip(cx, ts_node_start_byte(w->node), "threadIdx.x already runs along the contiguous axis '%s' of '%s'",
                        n->axes.data[ax[0]].name, w->array);
  if (!kr_nest_coef_is(&w->index, ax[1], 1))
    return kr_pass_skip(cx, ts_node_start_byte(w->node), "'%s' is contiguous along neither '%s' nor '%s'", w->array,
                        n->axes.data[ax[0]].name, n->axes.data[ax[1]].name);
  for (int k = 0; k < 2; k++) p->decl[k] = decl_at(cx, n->axes.data[ax[k]].at);
  if (ts_node_is_null(p->decl[0]) || ts_node_is_null(p->decl[1]))
    return kr_pass_skip(cx, at, "the thread indices are not declared at the top of the kernel");
  TSNode s = stray_index(cx, cx->kernel->body, p->decl[0], p->decl[1]);
  if (!ts_node_is_null(s))
    return kr_pass_skip(cx, ts_node_start_byte(s), "'%s' is used outside the two thread indices, so x and y cannot swap",
                        kr_pass_text(cx, s));
  p->out = w->array;
  p->axis = n->axes.data[ax[1]].name;
  return KR_OK;
}

static KrStatus check(KrPassCtx *cx) {
  Plan p;
  return plan(cx, &p);
}

static void swap_in(KrPassCtx *cx, TSNode n) {
  char dim;
  if (hw_field(cx, n, &dim) && (dim == 'x' || dim == 'y')) {
    TSNode f = ts_node_child_by_field_name(n, "field", 5);
    kr_pass_replace_node(cx, f, dim == 'x' ? "y" : "x");
    return;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) swap_in(cx, ts_node_named_child(n, i));
}

static KrStatus apply(KrPassCtx *cx) {
  Plan p;
  KrStatus st = plan(cx, &p);
  if (st != KR_OK) return st;
  swap_in(cx, p.decl[0]);
  swap_in(cx, p.decl[1]);
  cx->launch.grid = "dim3(grid.y, grid.x, grid.z)";
  cx->launch.block = "dim3(block.y, block.x, block.z)";
  kr_pass_assume(cx, "the launch's x and y dimensions swap with the thread indices ('%s' is now along x)", p.axis);
  return KR_OK;
}

const KrPass kr_pass_coalesce = {
  .name = "coalesce",
  .summary = "threadIdx.x along the contiguous axis of the output; the launch's x and y swap",
  .doc = "When a kernel's thread map puts x on the output's strided axis (a warp writes elements "
         "a row apart), swaps the x and y of its two thread-index definitions and of the launch, "
         "so that a warp writes neighbouring elements. Refuses kernels that use the hardware "
         "indices anywhere else, and kernels already coalesced.",
  .params = NULL,
  .nparams = 0,
  .precision = KR_PRECISION_EXACT,
  .search = {
    .reason = "swap the x and y of %s's thread map and launch so that a warp writes neighbouring "
              "elements of the output",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 110, [KR_SEARCH_COMPUTE] = 110, [KR_SEARCH_LATENCY] = 110},
  },
  .check = check,
  .apply = apply,
};
