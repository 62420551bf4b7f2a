-- examples/matmul/problem.lua: C = A * B, fp32, row-major; A is M x K, B is K x N.
-- Benchmark: the seed problem (PERF.md), 4096 x 4096 times 4096 x 4096.
-- Tests: non-square, and no dimension a multiple of 16 (the block) or of any likely tile.
return {
  name = "matmul",
  source = "kernel.cu",
  sizes = {
    M = { bench = 4096, test = { 1, 17, 70, 33, 129 } },
    N = { bench = 4096, test = { 1, 31, 100, 45, 65 } },
    K = { bench = 4096, test = { 1, 13, 129, 67, 250 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "M * K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "fp32", count = "K * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "M * N", role = "output" },
  },
  launches = {
    { kernel = "matmul", grid = { "cdiv(N, 16)", "cdiv(M, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "M", "N", "K", "A", "B", "C" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * M * N * K",
  bytes = "4 * (M * K + K * N + M * N)",
  seeds = 3,
}
