-- tests/planted/specs/exp_large.lua: y = expf(x) (exp.cu) with arguments up to 80, where __expf's error (2 + 1.173 |x| ulp) exceeds strict fp32.
return {
  name = "exp_large",
  source = "exp.cu",
  sizes = { n = { bench = 16777216, test = { 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input", fill = { "uniform", -80, 80 } },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "exp_all", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "y" } } },
  tolerance = { rtol = 1e-6 },
  seeds = 2,
}
