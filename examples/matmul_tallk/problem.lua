-- examples/matmul_tallk/problem.lua: C = A * B, fp32, row-major, with an output too small to fill
-- the GPU and a long k: 512 x 512 outputs (16 tiles of 128 x 128 for 132 SMs), K = 32768.
-- Tests: no size a multiple of 16 or of a tile; K from below one k tile to several hundred, so that
-- split into parts some parts are empty and the last k tile is partial.
-- Tolerance: any summation order other than the naive kernel's differs from it by about the naive
-- kernel's own rounding error, which grows with K: against an fp64 sum of the same fp32 products
-- the naive fp32 loop is off by a relative L2 of 3.3e-6 at K = 32768 (1.1e-6 at 4096, 5.7e-7 at
-- 1001; uniform inputs in [-1, 1]), and a sum split into parts is as far from the naive one (3.4e-6
-- at 32768). So rtol is 1e-5 here; a schedule that kept the naive order would match to the bit.
return {
  name = "matmul_tallk",
  source = "kernel.cu",
  sizes = {
    M = { bench = 512, test = { 1, 19, 70, 45, 33 } },
    N = { bench = 512, test = { 1, 37, 33, 65, 66 } },
    K = { bench = 32768, test = { 1, 7, 300, 613, 517 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "M * K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "fp32", count = "K * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "M * N", role = "output" },
  },
  launches = {
    { kernel = "matmul_tallk", grid = { "cdiv(N, 16)", "cdiv(M, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "A", "B", "C", "M", "N", "K" } },
  },
  tolerance = { rtol = 1e-5 },
  flops = "2 * M * N * K",
  bytes = "4 * (M * K + K * N + M * N)",
  seeds = 2,
}
