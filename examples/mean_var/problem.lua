-- examples/mean_var/problem.lua: row-wise mean and population variance of x (rows, cols),
-- fp32, row-major, one thread per row. Benchmark: 16384 x 16384 (1 GiB of x).
-- Tests: a single element (variance 0), short and long rows, and 300 rows (two blocks, the
-- last one partly past the end). Inputs are normal(1, 2): a mean away from zero, so that its
-- relative error means something, and a variance of about 4.
-- Tolerance: the naive serial fp32 sums are themselves off from fp64 ones by a relative L2 (of the
-- mean) of 8.3e-7 at 4000 columns and 1.6e-6 at 16000 (bench/naive_error.c); strided sums stay
-- near 2e-7. Another order (block_reduce, welford) is that far from the naive kernel: rtol 1e-5.
return {
  name = "mean_var",
  source = "kernel.cu",
  sizes = {
    rows = { bench = 16384, test = { 1, 3, 33, 7, 300 } },
    cols = { bench = 16384, test = { 1, 31, 1000, 4099, 33 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "rows * cols", role = "input", fill = { "normal", 1, 2 } },
    { name = "mean", dtype = "fp32", count = "rows", role = "output" },
    { name = "var", dtype = "fp32", count = "rows", role = "output" },
  },
  launches = {
    { kernel = "mean_var", grid = "cdiv(rows, 256)", block = 256, shmem = 0,
      args = { "rows", "cols", "x", "mean", "var" } },
  },
  tolerance = { rtol = 1e-5 },
  flops = "4 * rows * cols",          -- add; subtract, multiply, add per element
  bytes = "4 * rows * cols + 8 * rows", -- read x once, write mean and var (the floor)
  seeds = 3,
}
