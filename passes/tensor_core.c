/* passes/tensor_core.c: the contraction's products on the tensor cores (WMMA), fed from the
 * staged tiles.
 * Before (after tile): each thread computes TM x TN outputs, per kk one multiply-add per output.
 *   for kk: acc[i][j] += A_tile[kk][tm0 + i] * B_tile[kk][tn0 + j];
 * After: each warp computes a WM x WN tile of the block's outputs as fragments of the WMMA shape
 * (16 x 16 x 8 for tf32; 16 x 16 x 16, 32 x 8 x 16 or 8 x 32 x 16 for fp16 and bf16): per k step it
 * loads its fragments of both operands from the staged tiles and multiplies them into its
 * accumulator fragments; after the k loop the fragments go through shared memory to each thread's
 * outputs and the kernel's own guard and epilogue.
 *   for kk in steps of MK: load a_frag[FM], b_frag[FN]; mma_sync(c_frag[i][j], a_frag[i], b_frag[j])
 * An operand contiguous along k is staged k-major ([BM][BK + pad], 16-byte loads along k), the others
 * as tile stages them; all tiles live in dynamic shared memory with the C tile.
 * Precision: tf32 rounds both fp32 operands to tf32 (lowers, tolerance 1e-3); fp16 and bf16 lower
 * fp32 operands as they are staged (1e-3 and 1e-2; stages = 1 only: cp.async cannot convert) and
 * are exact on operands already stored in that type (the sum reassociated); 3xtf32 splits each fp32
 * operand into a tf32 value and a tf32 residual and adds three products per term, which keeps
 * fp32-grade accuracy (declared exact: bench/results holds its error against float64).
 * Requires: a contraction whose update is `acc += A[m, k] * B[k, n]` (in either order, times
 * factors that do not change in the loop, such as alpha) with both operands staged, a float
 * accumulator, no temporary in the loop; lowering precisions need kr.allow_lowering().
 * api = "mma" (default) computes with PTX mma.sync m16n8k8 / m16n8k16 fed by ldmatrix, the accumulators in
 * registers and the outputs taken straight from them; api = "wmma" with the WMMA API as above; api =
 * "wgmma" (tf32, fp16, bf16; sm_90a) with Hopper's warpgroup products, the k-major operand read from a swizzled
 * shared tile and the other from registers (schedule.c, "api wgmma"; the warp tile is wgmma's own).
 * Params: precision (auto: 3xtf32 for float operands, the operands' own type for half and bf16), api,
 * k (the k tile, replacing tile's: wgmma reads rows of 128 bytes), shape = {M, N, K}, warp = {WM, WN} (default: half the block tile's rows by a quarter of its
 * columns, at least one fragment). */
#include <string.h>

#include "passes/pass.h"

static KrStatus check(KrPassCtx *cx) { return kr_schedule_check_contraction(cx); }

/* The operands' element type: the type of the first staged array read in the loop. */
static const char *operand_type(const KrPassCtx *cx) {
  const KrNest *n = cx->nest;
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    if (!r->in_loop || r->write) continue;
    for (size_t p = 0; p < n->kernel->params.len; p++)
      if (strcmp(n->kernel->params.data[p].name, r->array) == 0) return n->kernel->params.data[p].base;
  }
  return "float";
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  uint32_t at = ts_node_start_byte(cx->kernel->node);
  kr_schedule_defaults(s, cx->nest, cx->arena);
  const char *prec = kr_pass_arg(cx, "precision")->s;
  if (strcmp(prec, "auto") == 0) {
    const char *t = operand_type(cx);
    prec = strcmp(t, "__nv_bfloat16") == 0 ? "bf16" : strcmp(t, "half") == 0 || strcmp(t, "__half") == 0 ? "fp16" : "3xtf32";
  }
  s->mma = strcmp(prec, "tf32") == 0 ? KR_MMA_TF32 : strcmp(prec, "fp16") == 0 ? KR_MMA_FP16
         : strcmp(prec, "bf16") == 0 ? KR_MMA_BF16 : KR_MMA_3XTF32;
  bool tf32 = s->mma == KR_MMA_TF32 || s->mma == KR_MMA_3XTF32;
  int bk = (int)kr_pass_arg(cx, "k")->i;
  if (bk) s->bk = bk;   /* the k tile the products want (wgmma's rows of 128 bytes), replacing the tile's */
  const char *api = kr_pass_arg(cx, "api")->s;
  s->mma_wg = strcmp(api, "wgmma") == 0;
  s->mma_ptx = s->mma_wg || strcmp(api, "mma") == 0;
  const KrValue *shape = kr_pass_arg(cx, "shape"), *warp = kr_pass_arg(cx, "warp");
  if (shape->ints.len == 3) {
    s->mma_m = (int)shape->ints.data[0], s->mma_n = (int)shape->ints.data[1], s->mma_k = (int)shape->ints.data[2];
  } else if (shape->ints.len == 0) {
    s->mma_m = 16, s->mma_n = s->mma_ptx ? 8 : 16, s->mma_k = tf32 ? 8 : 16;
  } else {
    return kr_pass_skip(cx, at, "tensor_core: shape takes three sizes {M, N, K}, got %zu", shape->ints.len);
  }
  if (warp->ints.len == 2) {
    s->wm = (int)warp->ints.data[0], s->wn = (int)warp->ints.data[1];
  } else if (warp->ints.len == 0) {
    s->wm = s->bm / 2 >= s->mma_m ? s->bm / 2 : s->mma_m;
    s->wn = s->bn / (s->bn >= 64 ? 4 : 2) >= s->mma_n ? s->bn / (s->bn >= 64 ? 4 : 2) : s->mma_n;
  } else {
    return kr_pass_skip(cx, at, "tensor_core: warp takes two sizes {WM, WN}, got %zu", warp->ints.len);
  }
  if (s->mma_wg) {   /* 16 rows of the product per warp: along n when wgmma reads the m side from shared memory */
    if (shape->ints.len || warp->ints.len)
      return kr_pass_skip(cx, at, "tensor_core: api wgmma sets its shape and warp tile itself (64 x N x %d per warpgroup)",
                          tf32 ? 8 : 16);
    bool x_is_m;
    const char *why;
    if (!kr_schedule_wg_side(cx->nest, s, &x_is_m, &why, cx->arena)) return kr_pass_skip(cx, at, "%s", why);
    s->mma_m = 16, s->mma_n = 8, s->mma_k = tf32 ? 8 : 16;
    /* 32 threads per 16 rows of the product; the thread tile only sets that count (the outputs come
     * from the accumulators), so it takes the product's rows two by two. */
    if (x_is_m) s->wm = s->bm, s->wn = 16, s->tm = s->bm / 2, s->tn = 1;
    else s->wm = 16, s->wn = s->bn, s->tm = 1, s->tn = s->bn / 2;
  } else {
    kr_schedule_mma_thread_tile(s, &s->tm, &s->tn);   /* kr_schedule_check says why when there is none */
  }
  return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
}

static const KrParamSpec params[] = {
  {.name = "precision", .type = KR_PARAM_STRING, .def = "auto", .choices = "auto|tf32|fp16|bf16|3xtf32",
   .doc = "the operands on the tensor cores: tf32, fp16 and bf16 lower fp32 operands (kr.allow_lowering()); 3xtf32 "
          "keeps fp32-grade accuracy; auto: 3xtf32 for float operands, fp16 or bf16 for operands stored so"},
  {.name = "api", .type = KR_PARAM_STRING, .def = "mma", .choices = "mma|wmma|wgmma",
   .doc = "mma (default): PTX mma.sync fed by ldmatrix, results straight from registers; wgmma: Hopper's warpgroup "
          "wgmma.mma_async (sm_90a; k tiles of 32 for tf32 and 3xtf32, 64 for fp16 and bf16), the k-major operand read from a swizzled shared tile, the other "
          "from registers; wmma: the nvcuda::wmma API, results through shared memory (on sm_90 its fragment loads compile "
          "to generic loads: measured slower)"},
  {.name = "k", .type = KR_PARAM_INT, .def = "0", .min = 0, .max = 256,
   .doc = "the k tile BK, replacing the one tile set (0: keep it); api wgmma needs 32 for tf32 and 3xtf32, 64 for fp16 "
          "and bf16"},
  {.name = "shape", .type = KR_PARAM_INTS, .def = "{}", .min = 8, .max = 32,
   .doc = "the WMMA shape {M, N, K} (default 16 x 16 x 8 for tf32, 16 x 16 x 16 for fp16 and bf16)"},
  {.name = "warp", .type = KR_PARAM_INTS, .def = "{}", .min = 8, .max = 256,
   .doc = "the outputs one warp computes {WM, WN} (default BM/2 x BN/4, BN/2 below 64 columns)"},
};

const KrPass kr_pass_tensor_core = {
  .name = "tensor_core",
  .summary = "the contraction's products on the tensor cores (WMMA), tf32/fp16/bf16/3xtf32",
  .doc = "Regenerates the kernel from its nest with each warp computing a WM x WN tile of the block's outputs as "
         "WMMA fragments loaded from the staged tiles; the results go through shared memory to the kernel's own "
         "epilogue. tf32, and fp16/bf16 on fp32 operands, lower precision (kr.allow_lowering(); tolerance 1e-3, "
         "1e-3, 1e-2); 3xtf32 (a tf32 value and residual per operand, three products) keeps fp32-grade accuracy. "
         "Refuses updates that are not a product of two staged operands, max/min reductions, non-float "
         "accumulators, shapes the precision does not have.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_PARAM,
  .schedule = true,
  .reassociates = true,
  .search = {
    .reason = "compute the products of %s's contraction on the tensor cores (PTX mma.sync fed by ldmatrix, or "
              "Hopper's wgmma with k tiles of 128 bytes), each warp a tile of the block's outputs; fp32 operands in "
              "tf32 or, fp32-grade, 3xtf32 (both lower precision: opted in), 16-bit operands as they are",
    .points = {{"auto", "{}"}, {"tf32", "{ precision = \"tf32\" }"},
                {"auto,wgmma", "{ api = \"wgmma\", k = 32 }"},
                {"tf32,wgmma", "{ precision = \"tf32\", api = \"wgmma\", k = 32 }"},
                {"16-bit,wgmma", "{ api = \"wgmma\", k = 64 }"}},
    .rank = {[KR_SEARCH_MEMORY] = 80, [KR_SEARCH_COMPUTE] = 50, [KR_SEARCH_LATENCY] = 80},
    .role = KR_SEARCH_FAMILY,
    .grid = KR_GRID_TENSOR,
  },
  .check = check,
  .apply = apply,
};
