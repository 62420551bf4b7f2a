-- tests/verify/planted/original_crash.lua: vector_add whose original kernel is ../bugs/crash.cu, so
-- verify must say once that the reference cannot be used and stop, not fail every case.
return {
  name = "original_crash",
  source = "../bugs/crash.cu",
  sizes = { n = { bench = 1048576, test = { 1, 7, 1000, 4099 } } },
  buffers = {
    { name = "x",   dtype = "fp32", count = "n", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y",   dtype = "fp32", count = "n", role = "input", fill = { "normal", 0, 1 } },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, shmem = 0,
      args = { "n", 2.5, "x", "y", "out" } },
  },
  tolerance = { rtol = 1e-6 },
  seeds = 3,
}
