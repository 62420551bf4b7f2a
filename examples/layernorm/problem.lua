-- examples/layernorm/problem.lua: LayerNorm of x (N, C, H, W) over its last three dims, fp32,
-- eps 1e-5, with weight and bias of C*H*W elements each (elementwise affine, as PyTorch).
-- Benchmark (PERF.md): x (16, 64, 256, 256), rows of 4,194,304 elements. The kernel sees
-- rows = N and cols = C*H*W; one block of 256 threads per row.
-- Tests: rows from 7 to 3003 elements, none a multiple of 256 or of 4.
-- Tolerance: strict fp32. The order of the additions in a block is fixed by the block size, so
-- the original and an exact rewrite that keeps the block size agree to rounding.
return {
  name = "layernorm",
  source = "kernel.cu",
  sizes = {
    N = { bench = 16, test = { 1, 3, 2, 5 } },
    C = { bench = 64, test = { 1, 3, 2, 7 } },
    H = { bench = 256, test = { 1, 5, 13, 3 } },
    W = { bench = 256, test = { 7, 11, 17, 143 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "N * C * H * W", role = "input", fill = { "normal", 0.5, 2 } },
    { name = "weight", dtype = "fp32", count = "C * H * W", role = "input", fill = { "uniform", 0.5, 1.5 } },
    { name = "bias", dtype = "fp32", count = "C * H * W", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y", dtype = "fp32", count = "N * C * H * W", role = "output" },
  },
  launches = {
    { kernel = "layernorm", grid = "N", block = 256, shmem = 0,
      args = { "N", "C * H * W", 1e-5, "x", "weight", "bias", "y" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "8 * N * C * H * W",
  -- The floor: read x once, write y once, read weight and bias once.
  bytes = "8 * N * C * H * W + 8 * C * H * W",
  seeds = 3,
}
