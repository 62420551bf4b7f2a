-- tests/planted/specs/exp_small.lua: y = expf(x) (exp.cu) with arguments in [-1, 1] and the fast-math tolerance 1e-5, which __expf meets.
return {
  name = "exp_small",
  source = "exp.cu",
  sizes = { n = { bench = 16777216, test = { 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "exp_all", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "y" } } },
  tolerance = { rtol = 1e-5 },
  seeds = 2,
}
