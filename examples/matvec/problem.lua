-- examples/matvec/problem.lua: y = A * x, fp32, A (M x N) row-major, one thread per row.
-- Benchmark: 16384 x 16384 (1 GiB of A). Tests: tall, wide, single row and single column.
-- Tolerance: the naive serial fp32 dot product over a row is itself off from an fp64 sum of the
-- same products by a relative L2 of 1.3e-6 at N = 4000 and 2.5e-6 at 16000 (bench/naive_error.c,
-- the matvec_t figures: the same sums); a sum strided over a warp or a block stays near 3e-7 to
-- 5e-7. Another order is that far from the naive kernel up to the benchmark size: rtol is 1e-5.
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
  tolerance = { rtol = 1e-5 },
  flops = "2 * M * N",
  bytes = "4 * (M * N + N + M)",
  seeds = 3,
}
