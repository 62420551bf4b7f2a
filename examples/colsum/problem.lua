-- examples/colsum/problem.lua: y[j] = sum_i A[i][j], fp32, A (M x N) row-major, one thread per
-- column. Benchmark: M = 65536, N = 4096 (1 GiB of A): long columns and few of them, so the
-- naive kernel has only 4096 threads, each adding 65536 values in sequence.
-- Tests: a single element, a single row's worth of columns, long columns of a few, and N that
-- is no multiple of 32 (the last block partly past the end).
-- Inputs are uniform in [0, 1) so the sums do not cancel towards zero, which would make a
-- relative error meaningless.
-- Tolerance: the naive serial fp32 column sum is itself off from an fp64 sum by a relative L2 of
-- 7.8e-7 at M = 4000, 1.7e-6 at 16000 and 3.1e-6 at 64000 (bench/naive_error.c); a sum strided
-- over threads stays near 2e-7. Another summation order is that far from the naive kernel, up to
-- the benchmark size, so rtol is 1e-5.
return {
  name = "colsum",
  source = "kernel.cu",
  sizes = {
    M = { bench = 65536, test = { 1, 3, 1000, 4099, 33 } },
    N = { bench = 4096, test = { 1, 33, 31, 3, 1000 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "M * N", role = "input", fill = { "uniform", 0, 1 } },
    { name = "y", dtype = "fp32", count = "N", role = "output" },
  },
  launches = {
    { kernel = "colsum", grid = "cdiv(N, 256)", block = 256, shmem = 0,
      args = { "M", "N", "A", "y" } },
  },
  tolerance = { rtol = 1e-5 },
  flops = "M * N",
  bytes = "4 * (M * N + N)",
  seeds = 3,
}
