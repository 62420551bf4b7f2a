-- examples/matvec/problem.lua: y = A * x, fp32, A (M x N) row-major, one thread per row.
-- Benchmark: 16384 x 16384 (1 GiB of A). Tests: tall, wide, single row and single column.
return {
  name = "matvec",
  source = "kernel.cu",
  sizes = {
    M = { bench = 16384, test = { 1, 37, 300, 129, 1000 } },
    N = { bench = 16384, test = { 1, 129, 33, 1000, 1 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "M * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "x", dtype = "fp32", count = "N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y", dtype = "fp32", count = "M", role = "output" },
  },
  launches = {
    { kernel = "matvec", grid = "cdiv(M, 256)", block = 256, shmem = 0,
      args = { "M", "N", "A", "x", "y" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * M * N",
  bytes = "4 * (M * N + N + M)",
  seeds = 3,
}
