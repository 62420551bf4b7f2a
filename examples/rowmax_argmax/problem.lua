-- examples/rowmax_argmax/problem.lua: the maximum of each row of x (rows, cols), fp32,
-- row-major, and the first column where it occurs (int32), one thread per row.
-- Benchmark: 16384 x 16384 (1 GiB of x). Tests: a single element, short and long rows, and
-- 300 rows (two blocks, the last one partly past the end).
-- Ties: x holds whole numbers from -50 to 50 (stored as fp32), so a row of 1000 or more holds
-- its maximum about ten times or more and the first index is what is tested; rows of 31 or 33
-- tie less often, and the 1 x 1 case not at all. The int32 output amax is compared exactly;
-- vmax is compared as fp32 (it is one of the inputs, so any correct kernel matches it exactly).
-- A fill is per buffer, not per test case, so every case has whole-number inputs.
return {
  name = "rowmax_argmax",
  source = "kernel.cu",
  sizes = {
    rows = { bench = 16384, test = { 1, 3, 33, 7, 300 } },
    cols = { bench = 16384, test = { 1, 31, 1000, 4099, 33 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "rows * cols", role = "input", fill = { "ints", -50, 50 } },
    { name = "vmax", dtype = "fp32", count = "rows", role = "output" },
    { name = "amax", dtype = "int32", count = "rows", role = "output" },
  },
  launches = {
    { kernel = "rowmax_argmax", grid = "cdiv(rows, 256)", block = 256, shmem = 0,
      args = { "rows", "cols", "x", "vmax", "amax" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "rows * cols",              -- one comparison per element
  bytes = "4 * rows * cols + 8 * rows",
  seeds = 3,
}
