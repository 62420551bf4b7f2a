-- examples/relu_gelu/problem.lua: y = gelu(x) (tanh form) and z = relu(x) over n fp32 elements,
-- two kernels and two launches. Benchmark: 2^24 elements (64 MiB a buffer).
return {
  name = "relu_gelu",
  source = "kernel.cu",
  sizes = {
    n = { bench = 16777216, test = { 1, 7, 1000, 4099, 65537 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input", fill = { "normal", 0, 2 } },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
    { name = "z", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "gelu", grid = "cdiv(n, 256)", block = 256, shmem = 0, args = { "n", "x", "y" } },
    { kernel = "relu", grid = "cdiv(n, 256)", block = 256, shmem = 0, args = { "n", "x", "z" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "10 * n",                   -- about 9 for gelu (tanh counted as one), 1 for relu
  bytes = "12 * n",                   -- the floor: read x once, write y and z
  seeds = 3,
}
