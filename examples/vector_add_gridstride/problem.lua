-- examples/vector_add_gridstride/problem.lua: out = x + y over n fp32 elements, grid-stride loop
-- with the grid capped at 1024 blocks of 256. Tests include n above 1024 * 256 = 262144, so
-- threads go round the loop more than once, and sizes that are no multiple of 4.
return {
  name = "vector_add_gridstride",
  source = "kernel.cu",
  sizes = {
    n = { bench = 16777216, test = { 1, 7, 1000, 4099, 270001 } },
  },
  buffers = {
    { name = "x",   dtype = "fp32", count = "n", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y",   dtype = "fp32", count = "n", role = "input", fill = { "normal", 0, 1 } },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "vector_add_gridstride", grid = "min(cdiv(n, 256), 1024)", block = 256, shmem = 0,
      args = { "n", "x", "y", "out" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "n",
  bytes = "12 * n",
  seeds = 3,
}
