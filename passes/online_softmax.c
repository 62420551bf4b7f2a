/* passes/online_softmax.c: a row's maximum and its sum of exponentials in one sweep.
 * Before: `for (j…) m = fmaxf(m, v); … for (j…) s += expf(v - m);` (the row read twice before the
 * normalising sweep; softmax reads it three times).
 * After: one sweep keeping (m, s) per thread: a value above the running maximum rescales the sum,
 * `s = s * expf(m - v) + 1; m = v`, any other adds `expf(v - m)`; the threads' pairs are combined as
 * `m = max(m1, m2); s = s1 * expf(m1 - m) + s2 * expf(m2 - m)`. The row is read once less.
 * Requires: a row nest (frontend/rows.h) with a loop whose one accumulator is a maximum through a
 * call (fmaxf, max, fmax) followed by a loop of the same range whose one accumulator sums
 * expf/__expf/exp(v - m) of the same value, neither with temporaries. Applies with the layout of
 * the schedule so far (block_reduce's default when there is none).
 * Params: none. Precision: exact for finite rows (the sum is reassociated and rescaled: within the
 * verifier's fp32 tolerance); a row with an infinity or NaN may differ in which outputs are NaN. */
#include "passes/reduction.h"

static KrStatus check(KrPassCtx *cx) {
  if (kr_reduction_check(cx) != KR_OK) return KR_SKIP;
  uint32_t at;
  const char *why = kr_reduction_online_why(cx->rows, cx->nest_tree, &at, cx->arena);
  return why ? kr_pass_skip(cx, kr_reduction_at(cx, at), "online_softmax: %s", why) : KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  if (s->layout == KR_LAYOUT_NONE) s->layout = kr_reduction_layout(cx->rows, cx->nest_tree), s->threads = 256;
  s->online = true;
  return kr_reduction_emit(cx);
}

const KrPass kr_pass_online_softmax = {
  .name = "online_softmax",
  .summary = "a row's max and its sum of exp(v - max) in one sweep (rescaled running sum)",
  .doc = "Fuses a max loop and the loop summing exp(v - max) of a row nest into one sweep with a per-thread "
         "(max, sum) pair, the sum rescaled by exp(old - new) when the max grows, pairs combined across the row's "
         "threads in a fixed order. Keeps the layout of earlier reduction passes (block_reduce's by default).",
  .params = NULL,
  .nparams = 0,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "a sum over a row may be reassociated and rescaled",
  .schedule = true,
  .reassociates = true,
  .rows = true,
  .search = {
    .reason = "fuse the max loop of %s's rows and the sum of exp(v - max) after it into one sweep "
              "with a rescaled running sum (the row read once less), keeping its reduction schedule",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 20, [KR_SEARCH_COMPUTE] = 90, [KR_SEARCH_LATENCY] = 20},
    .role = KR_SEARCH_IN_FAMILY,
  },
  .check = check,
  .apply = apply,
};
