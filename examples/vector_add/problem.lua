-- examples/vector_add/problem.lua: out = a*x + y over n fp32 elements (a = 2.5), one thread per
-- element in a grid-stride loop launched with cdiv(n, 256) blocks. The spec of docs/problems.md.
return {
  name = "vector_add",
  source = "kernel.cu",                      -- relative to this file
  sizes = {
    n = { bench = 16777216, test = { 1, 7, 1000, 4099 } },
  },
  buffers = {                                -- in order; a list, so the order is defined
    { name = "x",   dtype = "fp32", count = "n", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y",   dtype = "fp32", count = "n", role = "input", fill = { "normal", 0, 1 } },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, shmem = 0,
      args = { "n", 2.5, "x", "y", "out" } },
  },
  tolerance = { rtol = 1e-6 },               -- relative L2; default 1e-6 (strict fp32)
  flops = "2 * n",
  bytes = "12 * n",
  seeds = 3,
}
