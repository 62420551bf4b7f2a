/* tests/unit/test_prune.c: resource pruning of schedule candidates (search/prune.h): the limits a
 * ptxas report is held to, the model's order, a real schedule over the register file refused
 * after compiling it (when nvcc is here), and the note when nvcc is not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "backend/nvcc.h"
#include "search/prune.h"

static KrKernelResources report(int registers, int spill_stores, int smem) {
  return (KrKernelResources){.name = "matmul", .demangled = "matmul(int, int, int, float*, float*, float*)",
                             .registers = registers, .spill_stores = spill_stores,
                             .spill_loads = spill_stores, .smem = smem};
}

static void pruning_refuses_a_spilling_report_and_keeps_a_fitting_one(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrKernelResources spills = report(255, 96, 16896), fits = report(127, 0, 33792);
  const char *why = kr_prune_check(&spills, 256, 0, a);
  assert_non_null(why);
  assert_non_null(strstr(why, "spills registers (96 B spill stores"));
  assert_null(kr_prune_check(&fits, 256, 0, a));
  KrKernelResources big = report(72, 0, 12544);   /* what ptxas gives tile 128x256 + 4x8 */
  why = kr_prune_check(&big, 1024, 0, a);
  assert_non_null(why);
  assert_non_null(strstr(why, "1024 threads x 72 registers = 73728"));
  KrKernelResources shared = report(40, 0, 50 * 1024);
  assert_non_null(strstr(kr_prune_check(&shared, 256, 0, a), "static shared memory"));
  /* Tiles in dynamic shared memory past an SM's 227 KiB: the launch would fail. */
  assert_null(kr_prune_check(&fits, 256, 192 * 1024, a));
  assert_non_null(strstr(kr_prune_check(&fits, 256, 230 * 1024, a), "an SM has 232448"));
  kr_arena_free(a);
}

static void the_model_prefers_two_blocks_an_sm_and_its_bound_holds(void **state) {
  (void)state;
  KrPruneShape s = {.bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 8, .stages = 2, .threads = 256};
  KrKernelResources two = report(127, 0, 33792), one = report(168, 0, 33792);
  double bound = kr_prune_score(&s, NULL), s2 = kr_prune_score(&s, &two), s1 = kr_prune_score(&s, &one);
  assert_true(s2 > s1);            /* 168 registers leave room for one block of 256 threads */
  assert_true(bound >= s2 && bound >= s1);
  KrPruneShape small = {.bm = 64, .bn = 64, .bk = 16, .tm = 4, .tn = 4, .stages = 2, .threads = 256};
  assert_true(kr_prune_score(&small, &two) < s2);   /* less work and reuse per thread */
  KrPruneShape wide = s;
  wide.threads = 1024, wide.tm = 4, wide.tn = 4;
  assert_true(kr_prune_score(&wide, NULL) < bound);  /* outside 128..256 threads */
  /* Few outputs: gemm_accum's 517 x 613 fill 19 tiles of 128 x 128 and 77 of 64 x 64 on 132 SMs,
   * so the smaller tile ranks first; 4096 x 4096 outputs leave no SM idle either way. */
  s.grid_outputs = small.grid_outputs = 517.0 * 613;
  assert_true(kr_prune_score(&small, &two) > kr_prune_score(&s, &two));
  s.grid_outputs = small.grid_outputs = 4096.0 * 4096;
  assert_true(kr_prune_score(&small, &two) < kr_prune_score(&s, &two));
  assert_true(kr_prune_score(&s, &two) == s2);
}

/* The column layout (32 rows a block) where the rows' reads are contiguous across rows: colsum's 4096
 * columns are 128 blocks, one an SM, so 1024 threads rank first (the hand recipe's, 0.32 ms against
 * 0.95 for the 256 the model once picked); matvec_t's 16384 are 512 blocks, four an SM, so 512 threads
 * (2048 an SM) rank above 256; a block a row reads such rows strided and ranks below both. */
static void the_model_sizes_column_blocks_and_refuses_strided_rows(void **state) {
  (void)state;
  KrPruneShape c256 = {.rows = true, .column = true, .threads = 256, .grid_rows = 4096};
  KrPruneShape c1024 = c256, c512 = c256, row = {.rows = true, .threads = 256, .grid_rows = 4096, .strided = true};
  c1024.threads = 1024, c512.threads = 512;
  assert_true(kr_prune_score(&c1024, NULL) > kr_prune_score(&c256, NULL));
  assert_true(kr_prune_score(&c256, NULL) > kr_prune_score(&row, NULL));
  c256.grid_rows = c512.grid_rows = c1024.grid_rows = row.grid_rows = 16384;
  assert_true(kr_prune_score(&c512, NULL) > kr_prune_score(&c256, NULL));
  assert_true(kr_prune_score(&c512, NULL) > kr_prune_score(&c1024, NULL));
  assert_true(kr_prune_score(&c256, NULL) > kr_prune_score(&row, NULL));
  /* Where the rows are contiguous along the row, a block a row is not strided and the column layout is. */
  KrPruneShape blk = {.rows = true, .threads = 256, .grid_rows = 16384}, col = c512;
  col.strided = true;
  assert_true(kr_prune_score(&blk, NULL) > kr_prune_score(&col, NULL));
}

/* A tensor-core schedule's shape as kr_prune_shape_json reads it from the schedule record. */
static KrPruneShape tc_shape(const char *prec, const char *api, int bm, int bn, int bk, int stages, int wm, int wn, int threads) {
  char json[512], block[64];
  snprintf(json, sizeof json,
           "{\"block\": [%d, %d], \"k\": %d, \"stage\": [\"A\", \"B\"], \"pad\": true, \"thread\": [1, 1], "
           "\"stages\": %d, \"tensor_core\": {\"precision\": \"%s\", \"api\": \"%s\", \"shape\": [16, 8, 16], "
           "\"warp\": [%d, %d]}}", bm, bn, bk, stages, prec, api, wm, wn);
  snprintf(block, sizeof block, "dim3(%d, 1, 1)", threads);
  KrPruneShape s;
  assert_true(kr_prune_shape_json(json, block, &s));
  s.grid_outputs = 4096.0 * 4096.0;
  return s;
}

/* The tensor cores' model against the H200's sweeps of matmul_bf16 (bench/results/tensor-2026-12-02b.json,
 * -03c.json): wgmma 256 x 128 x 64, 4 stages (0.248 ms) above 128 x 256 (0.311) above mma.sync's best,
 * 128 x 128 x 64 in 3 stages (0.524); deeper pipelines above shallower; and the tf32 sweep's 256 x 128
 * (0.47 ms) above 128 x 128 (0.82). The SIMT terms of two blocks an SM do not enter: the best holds
 * its SM alone. */
static void the_model_ranks_tensor_core_schedules_as_measured(void **state) {
  (void)state;
  KrPruneShape wg256x128 = tc_shape("bf16", "wgmma", 256, 128, 64, 4, 256, 16, 256);
  KrPruneShape wg128x256 = tc_shape("bf16", "wgmma", 128, 256, 64, 4, 128, 16, 512);
  KrPruneShape wg128x128 = tc_shape("bf16", "wgmma", 128, 128, 64, 4, 128, 16, 256);
  KrPruneShape wg3 = tc_shape("bf16", "wgmma", 256, 128, 64, 3, 256, 16, 256);
  KrPruneShape mma = tc_shape("bf16", "mma", 128, 128, 64, 3, 64, 32, 256);
  KrPruneShape wmma = tc_shape("bf16", "wmma", 128, 128, 64, 3, 64, 32, 256);
  assert_int_equal(wg256x128.mma, KR_PRUNE_WGMMA);
  assert_int_equal(mma.mma, KR_PRUNE_MMA);
  assert_true(wg256x128.wm == 256 && wg256x128.wn == 16);
  assert_true(kr_prune_score(&wg256x128, NULL) > kr_prune_score(&wg128x256, NULL));
  assert_true(kr_prune_score(&wg128x256, NULL) > kr_prune_score(&wg128x128, NULL));
  assert_true(kr_prune_score(&wg256x128, NULL) > kr_prune_score(&wg3, NULL));
  assert_true(kr_prune_score(&wg128x128, NULL) > kr_prune_score(&mma, NULL));
  assert_true(kr_prune_score(&mma, NULL) > kr_prune_score(&wmma, NULL));
  /* 3xtf32's three products a term rank below tf32's one at the same tiles. */
  KrPruneShape tf32 = tc_shape("tf32", "wgmma", 128, 128, 32, 4, 128, 16, 256);
  KrPruneShape x3 = tc_shape("3xtf32", "wgmma", 128, 128, 32, 4, 128, 16, 256);
  assert_int_equal(x3.products, 3);
  assert_int_equal(tf32.products, 1);
  assert_true(kr_prune_score(&tf32, NULL) > kr_prune_score(&x3, NULL) + 1.5);
  /* 255 registers of 256 threads and 192 KiB of tiles: one block an SM, scored as the bound. */
  KrKernelResources r = {.registers = 255};
  wg256x128.dyn_shared = 192 * 1024;
  assert_true(kr_prune_score(&wg256x128, &r) == kr_prune_score(&wg256x128, NULL));
}

/* split_k's parts multiply a contraction's blocks: 16 tiles of 128 x 128 split 16 ways fill the SMs,
 * and then outrank 64 x 64 tiles split 4 ways (the same blocks, less reuse) and the unsplit tiles. */
static void split_parts_count_as_blocks(void **state) {
  (void)state;
  KrPruneShape big = {.bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 8, .stages = 2, .threads = 256,
                      .grid_outputs = 512.0 * 512.0};
  KrPruneShape split = big, small = big;
  split.parts = 16;
  small.bm = small.bn = 64, small.tm = small.tn = 4, small.parts = 4, small.threads = 256;
  assert_true(kr_prune_score(&split, NULL) > kr_prune_score(&big, NULL) + 6);
  assert_true(kr_prune_score(&split, NULL) > kr_prune_score(&small, NULL));
  KrPruneShape parsed;
  assert_true(kr_prune_shape_json("{\"block\": [128, 128], \"k\": 16, \"stage\": [], \"pad\": true, \"thread\": [8, 8], "
                                  "\"stages\": 2, \"parts\": 16}", "dim3(16, 16, 1)", &parsed));
  assert_true(parsed.parts == 16 && parsed.mma == KR_PRUNE_SIMT && parsed.threads == 256);
}

typedef struct Matmul {
  KrArena *a;
  char *text;
  size_t len;
  KrPruneCand c[2];
  KrPruneOptions o;
} Matmul;

static void matmul(Matmul *m) {
  m->a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  assert_int_equal(kr_file_read(KR_SOURCE_DIR "/examples/matmul/kernel.cu", m->a, &m->text, &m->len, d), KR_OK);
  kr_diags_free(d);
  /* 1024 threads each holding 64 accumulators: about 127 registers a thread, twice the register
   * file (or, where the kernel's __launch_bounds__ caps the registers at 64, spills). Within it:
   * 256 threads of 16 accumulators. */
  m->c[0] = (KrPruneCand){.label = "256x256,8x8",
                          .recipe = "local k = kr.kernel(\"matmul\")\n"
                                    "k:apply(\"tile\", { block = {256, 256}, k = 16 })\n"
                                    "k:apply(\"register_tile\", { thread = {8, 8} })\n"};
  m->c[1] = (KrPruneCand){.label = "64x64,4x4",
                          .recipe = "local k = kr.kernel(\"matmul\")\n"
                                    "k:apply(\"tile\", { block = {64, 64}, k = 16 })\n"
                                    "k:apply(\"register_tile\", { thread = {4, 4} })\n"};
  m->o = (KrPruneOptions){.source_path = KR_SOURCE_DIR "/examples/matmul/kernel.cu", .source_text = m->text,
                          .source_len = m->len, .kernel = "matmul", .jobs = 2, .keep = 2};
}

static void pruning_compiles_and_refuses_a_schedule_over_the_register_file(void **state) {
  (void)state;
  KrArena *fa = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *nvcc;
  bool have = kr_nvcc_find(&nvcc, fa, d) == KR_OK;
  kr_diags_free(d);
  kr_arena_free(fa);
  if (!have) skip();
  Matmul m;
  matmul(&m);
  const char *note;
  kr_prune_run(&m.o, m.c, 2, m.a, &note);
  assert_null(note);
  /* Kept first: the 64 x 64 schedule, compiled, with its report. */
  assert_string_equal(m.c[0].label, "64x64,4x4");
  assert_int_equal(m.c[0].verdict, KR_PRUNE_KEPT);
  assert_true(m.c[0].compiled && m.c[0].res.registers > 0 && m.c[0].res.spill_stores == 0);
  assert_int_equal(m.c[0].shape.threads, 256);
  assert_string_equal(m.c[1].label, "256x256,8x8");
  assert_int_equal(m.c[1].verdict, KR_PRUNE_REFUSED);
  assert_int_equal(m.c[1].shape.threads, 1024);
  const char *why = m.c[1].why;
  if (m.c[1].res.spill_stores > 0) assert_non_null(strstr(why, "spills registers"));
  else assert_non_null(strstr(why, "registers a block; an SM has 65536, so the launch would fail"));
  KrBuf b = {0};
  kr_prune_json(&m.c[1], &b);
  assert_non_null(strstr(b.data, "\"verdict\": \"refused\""));
  assert_non_null(strstr(b.data, "\"resources\": {\"registers\": "));
  kr_buf_free(&b);
  kr_arena_free(m.a);
}

/* reduce_sum's final kernel sums one row: every schedule of it leaves SMs idle, so every score is
 * negative (the model's idle term), and the grid must still keep its best, ranked by that score
 * (split into 32 parts before one block), not drop them all as unscored. */
static void a_row_schedule_that_leaves_sms_idle_is_still_kept(void **state) {
  (void)state;
  const char *old = getenv("CUDACXX");
  char *saved = old ? strdup(old) : NULL;
  setenv("CUDACXX", "/nonexistent/krewrite-test/nvcc", 1);   /* the model alone: the same on every machine */
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  char *text;
  size_t len;
  const char *path = KR_SOURCE_DIR "/examples/reduce_sum/kernel.cu";
  assert_int_equal(kr_file_read(path, a, &text, &len, d), KR_OK);
  KrPruneCand c[2] = {
    {.label = "block_reduce,threads=256",
     .recipe = "kr.kernel(\"reduce_final\"):apply(\"block_reduce\", { threads = 256 })\n"},
    {.label = "split_rows,parts=32", .recipe = "kr.kernel(\"reduce_final\"):apply(\"split_rows\", { parts = 32 })\n"},
  };
  KrPruneOptions o = {.source_path = path, .source_text = text, .source_len = len, .kernel = "reduce_final",
                      .jobs = 1, .keep = 2, .rows = 1};
  const char *note;
  kr_prune_run(&o, c, 2, a, &note);
  assert_non_null(note);   /* no nvcc: said so */
  assert_string_equal(c[0].label, "split_rows,parts=32");
  assert_int_equal(c[0].verdict, KR_PRUNE_KEPT);
  assert_int_equal(c[1].verdict, KR_PRUNE_KEPT);
  assert_true(c[0].score < 0 && c[1].score < c[0].score);
  assert_int_equal(c[0].rank, 1);
  KrBuf b = {0};
  kr_prune_json(&c[1], &b);
  assert_non_null(strstr(b.data, "\"score\": -"));
  kr_buf_free(&b);
  if (saved) setenv("CUDACXX", saved, 1), free(saved);
  else unsetenv("CUDACXX");
  kr_diags_free(d);
  kr_arena_free(a);
}

static void without_nvcc_the_pruning_is_skipped_with_a_note(void **state) {
  (void)state;
  const char *old = getenv("CUDACXX");
  char *saved = old ? strdup(old) : NULL;
  setenv("CUDACXX", "/nonexistent/krewrite-test/nvcc", 1);
  Matmul m;
  matmul(&m);
  m.o.keep = 1;
  const char *note;
  kr_prune_run(&m.o, m.c, 2, m.a, &note);
  if (saved) setenv("CUDACXX", saved, 1);
  else unsetenv("CUDACXX");
  free(saved);
  assert_non_null(note);
  assert_non_null(strstr(note, "resource pruning skipped"));
  /* Ranked by the model alone: nothing compiled, nothing refused, one kept. */
  assert_int_equal(m.c[0].verdict, KR_PRUNE_KEPT);
  assert_string_equal(m.c[0].label, "64x64,4x4");
  assert_false(m.c[0].compiled || m.c[1].compiled);
  assert_int_equal(m.c[1].verdict, KR_PRUNE_RANKED_OUT);
  assert_non_null(strstr(m.c[1].why, "without resources"));
  kr_arena_free(m.a);
}

static void a_pass_refusal_is_taken_apart(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrPassRefusal r;
  assert_true(kr__pass_refusal("pass 'register_tile' does not apply to kernel 'matmul': mm.cu (after pass 1, "
                               "tile):7:1: 16 x 16 accumulators per thread would spill registers (at most 128)",
                               a, &r));
  assert_string_equal(r.pass, "register_tile");
  assert_string_equal(r.kernel, "matmul");
  assert_string_equal(r.where, "mm.cu (after pass 1, tile):7:1");
  assert_string_equal(r.reason, "16 x 16 accumulators per thread would spill registers (at most 128)");
  assert_true(kr__pass_refusal("pass 'tile' does not apply to kernel 'va': va.cu:5:1: kernel 'va' cannot be "
                               "lifted into a nest: the loop's start is not uniform", a, &r));
  assert_string_equal(r.where, "va.cu:5:1");
  assert_string_equal(r.reason, "kernel 'va' cannot be lifted into a nest: the loop's start is not uniform");
  assert_false(kr__pass_refusal("recipe.lua:3: attempt to call a nil value", a, &r));
  kr_arena_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(pruning_refuses_a_spilling_report_and_keeps_a_fitting_one),
    cmocka_unit_test(the_model_prefers_two_blocks_an_sm_and_its_bound_holds),
    cmocka_unit_test(the_model_sizes_column_blocks_and_refuses_strided_rows),
    cmocka_unit_test(the_model_ranks_tensor_core_schedules_as_measured),
    cmocka_unit_test(split_parts_count_as_blocks),
    cmocka_unit_test(pruning_compiles_and_refuses_a_schedule_over_the_register_file),
    cmocka_unit_test(without_nvcc_the_pruning_is_skipped_with_a_note),
    cmocka_unit_test(a_row_schedule_that_leaves_sms_idle_is_still_kept),
    cmocka_unit_test(a_pass_refusal_is_taken_apart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
