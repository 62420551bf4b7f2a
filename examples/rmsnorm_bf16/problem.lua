-- examples/rmsnorm_bf16/problem.lua: row-wise RMSNorm in bf16 (fp32 accumulation), eps 1e-6.
-- Benchmark: 16384 rows (tokens) of 4096 (hidden size). One block of 256 threads per row.
-- Tests: rows shorter than the block, and lengths that are no multiple of 256, 8 or 2.
-- Tolerance: strict. The original and an exact rewrite do the same fp32 arithmetic in the same
-- order and round to bf16 at the same point, so their outputs agree bit for bit; bf16's coarse
-- rounding only needs a looser tolerance once a lowering pass (fast-math) is applied, and such a
-- pass states its own.
return {
  name = "rmsnorm_bf16",
  source = "kernel.cu",
  sizes = {
    rows = { bench = 16384, test = { 1, 3, 7, 5, 2 } },
    cols = { bench = 4096, test = { 1, 255, 1000, 4099, 3 } },
  },
  buffers = {
    { name = "x",      dtype = "bf16", count = "rows * cols", role = "input", fill = { "normal", 0, 1 } },
    { name = "weight", dtype = "bf16", count = "cols", role = "input", fill = { "uniform", 0.5, 1.5 } },
    { name = "y",      dtype = "bf16", count = "rows * cols", role = "output" },
  },
  launches = {
    { kernel = "rmsnorm_bf16", grid = "rows", block = 256, shmem = 0,
      args = { "rows", "cols", 1e-6, "x", "weight", "y" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "4 * rows * cols",
  bytes = "4 * rows * cols + 2 * cols",
  seeds = 3,
}
