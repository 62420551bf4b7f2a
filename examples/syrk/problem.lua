-- examples/syrk/problem.lua: the lower triangle of A A^T. C is inout: its upper triangle must come
-- back as it went in.
return {
  name = "syrk",
  source = "kernel.cu",
  sizes = {
    N = { bench = 4096, test = { 1, 19, 100, 130 } },
    K = { bench = 4096, test = { 1, 9, 67, 200 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "N * K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "N * N", role = "inout", fill = { "uniform", -1, 1 } },
  },
  launches = {
    { kernel = "syrk_lower", grid = { "cdiv(N, 16)", "cdiv(N, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "N", "K", "A", "C" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "N * N * K",
  bytes = "4 * (N * K + N * N)",
  seeds = 2,
}
