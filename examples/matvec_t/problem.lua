-- examples/matvec_t/problem.lua: y = A^T * x, fp32, A (M x N) row-major, one thread per output
-- element (per column of A). Benchmark: 16384 x 16384 (1 GiB of A), the size of examples/matvec.
-- Tests: a single element, tall, wide, a single row, a single column, and N that is no multiple
-- of 32 (the last block partly past the end).
-- Tolerance: the naive serial fp32 dot product is itself off from an fp64 sum of the same products
-- by a relative L2 of 1.3e-6 at M = 4000 and 2.5e-6 at 16000 (bench/naive_error.c); a strided sum
-- stays near 3e-7 to 5e-7. Another order is that far from the naive kernel: rtol is 1e-5.
return {
  name = "matvec_t",
  source = "kernel.cu",
  sizes = {
    M = { bench = 16384, test = { 1, 4099, 3, 1, 1000, 33 } },
    N = { bench = 16384, test = { 1, 31, 4099, 1000, 1, 1000 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "M * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "x", dtype = "fp32", count = "M", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y", dtype = "fp32", count = "N", role = "output" },
  },
  launches = {
    { kernel = "matvec_t", grid = "cdiv(N, 256)", block = 256, shmem = 0,
      args = { "M", "N", "A", "x", "y" } },
  },
  tolerance = { rtol = 1e-5 },
  flops = "2 * M * N",
  bytes = "4 * (M * N + M + N)",
  seeds = 3,
}
