-- examples/reduce_sum/problem.lua: out[0] = sum of x (n fp32 elements), two launches through a
-- temporary of cdiv(n, 256) partial sums. Tests include n = 70001 (274 partials, so the final
-- block's threads each sum more than one partial) and n = 1.
-- Tolerance: strict fp32, nothing more. The additions happen in an order fixed by the block
-- size, the same in the original and in an exact rewrite. Inputs are uniform in [0, 1) so the
-- sum does not cancel towards zero, which would make a relative error meaningless.
return {
  name = "reduce_sum",
  source = "kernel.cu",
  sizes = {
    n = { bench = 67108864, test = { 1, 7, 1000, 4099, 70001 } },
  },
  buffers = {
    { name = "x",       dtype = "fp32", count = "n", role = "input", fill = { "uniform", 0, 1 } },
    { name = "partial", dtype = "fp32", count = "cdiv(n, 256)", role = "temp" },
    { name = "out",     dtype = "fp32", count = "1", role = "output" },
  },
  launches = {
    { kernel = "reduce_partial", grid = "cdiv(n, 256)", block = 256, shmem = 0,
      args = { "n", "x", "partial" } },
    { kernel = "reduce_final", grid = 1, block = 256, shmem = 0,
      args = { "cdiv(n, 256)", "partial", "out" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "n",
  bytes = "4 * n + 4",
  seeds = 3,
}
