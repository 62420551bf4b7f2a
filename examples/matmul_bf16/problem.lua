-- examples/matmul_bf16/problem.lua: C = A * B, bf16 operands, fp32 accumulation and output.
-- Benchmark: 4096 x 4096 times 4096 x 4096, as matmul. Tests: non-square, no dimension a multiple of
-- 8 or 16 (a WMMA fragment) or of any likely tile.
-- Tolerance: bf16 products are exact in fp32, so only the order of the fp32 sum differs between
-- versions; at K = 4096 a reordered sum differs from the naive order by about 1.2e-6 (the naive
-- order's own error against float64 is 1.15e-6 there, bench/results/tensor-2026-12-02.json), so the
-- check allows 1e-5, as matmul_tallk's long sums do.
return {
  name = "matmul_bf16",
  source = "kernel.cu",
  sizes = {
    M = { bench = 4096, test = { 1, 17, 70, 33, 129 } },
    N = { bench = 4096, test = { 1, 31, 100, 45, 65 } },
    K = { bench = 4096, test = { 1, 13, 129, 67, 250 } },
  },
  buffers = {
    { name = "A", dtype = "bf16", count = "M * K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "bf16", count = "K * N", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "M * N", role = "output" },
  },
  launches = {
    { kernel = "matmul_bf16", grid = { "cdiv(N, 16)", "cdiv(M, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "M", "N", "K", "A", "B", "C" } },
  },
  tolerance = { rtol = 1e-5 },
  flops = "2 * M * N * K",
  bytes = "2 * (M * K + K * N) + 4 * M * N",
  seeds = 3,
}
