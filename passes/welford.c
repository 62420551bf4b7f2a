/* passes/welford.c: a row's mean and variance in one sweep.
 * Before: `for (j…) sum += v; float mean = sum / n; for (j…) { float d = v - mean; sq += d * d; }`
 * (the row read twice).
 * After: one sweep of Welford's update per thread (count, mean, M2), the threads' triples combined
 * by Chan's formula in a fixed order; then `sum` is count * mean and `sq` is
 * M2 + count * (mean - MEAN)^2 for the kernel's own MEAN (the identity Σ(v - c)² = M2 + n(mean - c)²
 * for any c, so the kernel's statements between the loops keep their meaning).
 * Requires: a row nest (frontend/rows.h) with a loop whose one accumulator sums a value, a
 * declaration after it that reads the sum (the mean), and a loop of the same range summing the
 * squared deviation of the same value from that mean (`float d = v - mean; sq += d * d;` or
 * `(v - mean) * (v - mean)`). Applies with the layout of the schedule so far (block_reduce's
 * default when there is none).
 * Params: none. Precision: exact (the same sums, reassociated; Welford is the stable form). */
#include "passes/reduction.h"

static KrStatus check(KrPassCtx *cx) {
  if (kr_reduction_check(cx) != KR_OK) return KR_SKIP;
  uint32_t at;
  const char *why = kr_reduction_welford_why(cx->rows, cx->nest_tree, &at, cx->arena);
  return why ? kr_pass_skip(cx, kr_reduction_at(cx, at), "welford: %s", why) : KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  if (s->layout == KR_LAYOUT_NONE) s->layout = kr_reduction_layout(cx->rows, cx->nest_tree), s->threads = 256;
  s->welford = true;
  return kr_reduction_emit(cx);
}

const KrPass kr_pass_welford = {
  .name = "welford",
  .summary = "a row's mean and sum of squared deviations in one sweep (Welford, Chan's combine)",
  .doc = "Fuses a sum loop, the mean computed from it and the loop summing squared deviations from that mean into "
         "one sweep of Welford's update per thread, combined across the row's threads by Chan's formula in a fixed "
         "order. Keeps the layout of earlier reduction passes (block_reduce's by default).",
  .params = NULL,
  .nparams = 0,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "the row's sums may be reassociated (Welford's one-sweep form)",
  .schedule = true,
  .reassociates = true,
  .rows = true,
  .search = {
    .reason = "fuse the sum, mean and squared-deviation loops of %s's rows into one sweep of Welford's update "
              "(the row read once less), keeping its reduction schedule",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 30, [KR_SEARCH_COMPUTE] = 100, [KR_SEARCH_LATENCY] = 30},
    .role = KR_SEARCH_IN_FAMILY,
  },
  .check = check,
  .apply = apply,
};
