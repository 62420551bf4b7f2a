-- As problem.lua, for the variants with 64-column block tiles (the original is v20).
return {
  name = "matmul_variants64",
  source = "v20.cu",
  sizes = {
    M = { bench = 4096, test = { 17, 129 } },
    N = { bench = 4096, test = { 31, 65 } },
    K = { bench = 4096, test = { 13, 250 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "M * K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "fp32", count = "K * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "M * N", role = "output" },
  },
  launches = {
    { kernel = "matmul", grid = { "cdiv(N, 64)", "cdiv(M, 128)" }, block = { 128 }, shmem = 0,
      args = { "M", "N", "K", "A", "B", "C" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * M * N * K",
  bytes = "4 * (M * K + K * N + M * N)",
  seeds = 1,
}
