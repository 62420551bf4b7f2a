-- examples/matmul_flat/problem.lua: C = A * B launched as one flat index per element of C.
return {
  name = "matmul_flat",
  source = "kernel.cu",
  sizes = {
    M = { bench = 4096, test = { 1, 17, 70, 129 } },
    N = { bench = 4096, test = { 3, 31, 100, 65 } },
    K = { bench = 4096, test = { 1, 13, 129, 250 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "M * K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "fp32", count = "K * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "M * N", role = "output" },
  },
  launches = {
    { kernel = "matmul_flat", grid = { "cdiv(M * N, 256)" }, block = { 256 }, shmem = 0,
      args = { "A", "B", "C", "M", "N", "K" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * M * N * K",
  bytes = "4 * (M * K + K * N + M * N)",
  seeds = 2,
}
