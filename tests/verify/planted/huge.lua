-- tests/verify/planted/huge.lua: a test size whose buffers (3 x 512 GiB) no machine here has:
-- verify must refuse it with the sizes and the figures before allocating anything.
return {
  name = "huge",
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 137438953472, test = { 7, 137438953472 } } },
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
  seeds = 1,
}
