-- tests/verify/planted/small.lua: vector_add tested only up to n = 1000 (benchmark 2^20), for
-- candidates wrong only above the test sizes (long.cu): the sizes beyond the list must catch them.
return {
  name = "vector_add_small_tests",
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 1048576, test = { 1, 7, 1000 } } },
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
  seeds = 2,
}
