-- examples/softmax_rowthread/problem.lua: softmax over dim 1 of x (rows, cols), fp32, row-major,
-- one thread per row. Benchmark: x (4096, 65536), the size of examples/softmax, so the two
-- compare. Tests: a single element, rows shorter than a warp, lengths that are no multiple of
-- 32 or of 4, and 1000 rows (four blocks, the last one partly past the end). Inputs are
-- normal(0, 3) so that exp spans several orders of magnitude.
return {
  name = "softmax_rowthread",
  source = "kernel.cu",
  sizes = {
    rows = { bench = 4096, test = { 1, 3, 33, 7, 2, 1000 } },
    cols = { bench = 65536, test = { 1, 31, 1000, 4099, 33, 3 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "rows * cols", role = "input", fill = { "normal", 0, 3 } },
    { name = "y", dtype = "fp32", count = "rows * cols", role = "output" },
  },
  launches = {
    { kernel = "softmax_rowthread", grid = "cdiv(rows, 256)", block = 256, shmem = 0,
      args = { "rows", "cols", "x", "y" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "5 * rows * cols",          -- max, subtract, exp, add, divide per element
  bytes = "8 * rows * cols",          -- read x once and write y once (the floor)
  seeds = 3,
}
