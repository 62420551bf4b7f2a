-- tests/steps/aliased/problem.lua: scale_sum with its y and x parameters given the same buffer.
return {
  name = "scale_sum_aliased",
  source = "kernel.cu",
  sizes = { n = { bench = 4096, test = { 7, 300 } }, m = { bench = 8, test = { 3, 5 } } },
  buffers = {
    { name = "y", dtype = "fp32", count = "n", role = "inout", fill = { "uniform", -1, 1 } },
    { name = "w", dtype = "fp32", count = "m", role = "input", fill = { "uniform", -1, 1 } },
  },
  launches = {
    { kernel = "scale_sum", grid = "cdiv(n, 128)", block = 128, shmem = 0, args = { "n", "m", "y", "y", "w" } },
  },
  tolerance = { rtol = 1e-6 },
  seeds = 1,
}
