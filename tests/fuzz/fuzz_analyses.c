/* tests/fuzz/fuzz_analyses.c: libFuzzer target for the analyses passes build on. Any byte string
 * that parses into kernels has, for each kernel, its declaration table, loop facts (canonical
 * form, trip counts, body facts, varying sets), and for every expression of the body its type,
 * constant value, thread uniformity and affine form asked for. A crash, a leak or undefined
 * behaviour in any of them is a finding. */
#include "frontend/access.h"
#include "frontend/affine.h"
#include "frontend/consteval.h"
#include "frontend/loops.h"
#include "frontend/uniform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NODES 20000   /* per kernel: keeps one input's run short */

static void ask_every_node(const KrTree *t, const KrKernel *k, KrScope *sc, KrLoops *lx,
                           const KrNameSet *varying, KrUniform *u, KrAffineCtx *ac, KrArena *a) {
  KrVec(TSNode) stack = {0};
  kr_vec_push(a, &stack, k->body);
  for (size_t seen = 0; stack.len && seen < MAX_NODES; seen++) {
    TSNode n = stack.data[--stack.len];
    long long v;
    TSNode culprit;
    (void)kr_type_of(sc, n);
    (void)kr_const_eval(sc, n, &v);
    (void)kr_uniform(u, n, &culprit);
    const KrAffine *f = kr_affine_of(ac, n);
    (void)kr_affine_text(f, a);
    if (ts_node_symbol(n) == t->sym.identifier) {
      KrBinding b = kr_resolve(t, k, n);
      (void)kr_uniform_except(u, n, b, &culprit);
    }
    if (varying) (void)kr_loops_invariant(lx, n, varying, &culprit);
    uint32_t c = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < c; i++) kr_vec_push(a, &stack, ts_node_named_child(n, i));
  }
}

static void analyse(const KrTree *t, const KrKernel *k, KrArena *a) {
  KrScope *sc = kr_scope_new(t, k, a);
  KrLoops *lx = kr_loops_new_in(t, k, sc, a);
  for (size_t i = 0; i < k->loops.len; i++) {
    bool own;
    (void)kr_loops_info(lx, i);
    (void)kr_loops_head(lx, i, &own);
    (void)kr_affine_loop_init(kr_affine_ctx_new(t, k, a), (int)i);
  }
  (void)kr_scope_name_in_code(sc, "kr_v");
  (void)kr_access_new(t, k, a);
  KrNameSet varying; /* of the first loop: enough to reach the invariance code */
  if (k->loops.len) kr_loops_varying(lx, 0, &varying);
  ask_every_node(t, k, sc, lx, k->loops.len ? &varying : NULL, kr_uniform_new(t, k, a),
                 kr_affine_ctx_new(t, k, a), a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  KrArena *arena = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSource src;
  if (kr_source_from_text(&src, "fuzz.cu", (const char *)data, size, arena, d) == KR_OK) {
    KrTree *t = kr_tree_parse(&src, d);
    if (t) {
      KrModel *m = kr_model_new(t, arena);
      for (size_t i = 0; i < m->kernels.len && i < 4; i++) analyse(t, &m->kernels.data[i], arena);
      kr_tree_free(t);
    }
  }
  kr_diags_free(d);
  kr_arena_free(arena);
  return 0;
}
