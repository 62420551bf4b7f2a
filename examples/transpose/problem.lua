-- examples/transpose/problem.lua: out (cols x rows) = in (rows x cols)^T, fp32, row-major.
-- Benchmark: 8192 x 4096 (128 MiB each way). Tests: non-square, nothing a multiple of 16.
return {
  name = "transpose",
  source = "kernel.cu",
  sizes = {
    rows = { bench = 8192, test = { 1, 7, 100, 257, 1 } },
    cols = { bench = 4096, test = { 1, 33, 37, 129, 300 } },
  },
  buffers = {
    { name = "in",  dtype = "fp32", count = "rows * cols", role = "input", fill = { "uniform", -1, 1 } },
    { name = "out", dtype = "fp32", count = "rows * cols", role = "output" },
  },
  launches = {
    { kernel = "transpose", grid = { "cdiv(cols, 16)", "cdiv(rows, 16)" }, block = { 16, 16 },
      shmem = 0, args = { "rows", "cols", "in", "out" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "0",
  bytes = "8 * rows * cols",
  seeds = 3,
}
