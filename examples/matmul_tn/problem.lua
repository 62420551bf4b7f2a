-- examples/matmul_tn/problem.lua: C = A^T B, A stored K x M. Benchmark 4096^3; tests at sizes that
-- are no multiple of any tile.
return {
  name = "matmul_tn",
  source = "kernel.cu",
  sizes = {
    M = { bench = 4096, test = { 1, 19, 70, 129 } },
    N = { bench = 4096, test = { 1, 33, 100, 65 } },
    K = { bench = 4096, test = { 1, 7, 130, 67 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "K * M", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "fp32", count = "K * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "M * N", role = "output" },
  },
  launches = {
    { kernel = "matmul_tn", grid = { "cdiv(N, 16)", "cdiv(M, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "A", "B", "C", "M", "N", "K" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * M * N * K",
  bytes = "4 * (M * K + K * N + M * N)",
  seeds = 2,
}
