-- examples/softmax/problem.lua: softmax over dim 1 of x (rows, cols), fp32, row-major.
-- Benchmark (PERF.md): x (4096, 65536). One block of 256 threads per row.
-- Tests: a single element, rows shorter than the block, and lengths that are no multiple of 256
-- or of 4. Inputs are normal(0, 3) so that exp spans several orders of magnitude.
return {
  name = "softmax",
  source = "kernel.cu",
  sizes = {
    rows = { bench = 4096, test = { 1, 3, 7, 5, 2 } },
    cols = { bench = 65536, test = { 1, 255, 1000, 4099, 257 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "rows * cols", role = "input", fill = { "normal", 0, 3 } },
    { name = "y", dtype = "fp32", count = "rows * cols", role = "output" },
  },
  launches = {
    { kernel = "softmax", grid = "rows", block = 256, shmem = 0,
      args = { "rows", "cols", "x", "y" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "5 * rows * cols",          -- max, subtract, exp, add, divide per element
  bytes = "8 * rows * cols",          -- read x once and write y once (the floor)
  seeds = 3,
}
