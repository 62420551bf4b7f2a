-- examples/softmax_rowthread/problem.lua: softmax over dim 1 of x (rows, cols), fp32, row-major,
-- one thread per row. Benchmark: x (4096, 65536), the size of examples/softmax, so the two
-- compare. Tests: a single element, rows shorter than a warp, lengths that are no multiple of
-- 32 or of 4, and 300 rows (two blocks, the last one partly past the end). Inputs are
-- normal(0, 3) so that exp spans several orders of magnitude.
-- Tolerance: the naive kernel's serial fp32 sum of the exponentials is itself off from an fp64
-- sum of the same terms by a relative L2 (of y) of 2.7e-6 at 4000 columns, 1.0e-5 at 16000 and
-- 8.1e-5 at 64000 (bench/naive_error.c), while a sum strided over 256 threads stays near 1e-7 to
-- 5e-7; any exact rewrite that sums in another order is that far from the naive kernel, up to the
-- benchmark size the verifier also checks. So rtol is 2e-4 here, not 1e-6.
return {
  name = "softmax_rowthread",
  source = "kernel.cu",
  sizes = {
    rows = { bench = 4096, test = { 1, 3, 33, 7, 2, 300 } },
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
  tolerance = { rtol = 2e-4 },
  flops = "5 * rows * cols",          -- max, subtract, exp, add, divide per element
  bytes = "8 * rows * cols",          -- read x once and write y once (the floor)
  seeds = 3,
}
