-- tests/planted/specs/div_huge.lua: x / y (div.cu) with divisors between 2^126 and 2^128, where
-- __fdividef returns 0.
return {
  name = "div_huge",
  source = "div.cu",
  sizes = { n = { bench = 16777216, test = { 7, 1000 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input", fill = { "uniform", 1, 1000 } },
    { name = "y", dtype = "fp32", count = "n", role = "input", fill = { "uniform", 1e38, 3e38 } },
    { name = "z", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "divide", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "y", "z" } } },
  tolerance = { rtol = 1e-5 },
  seeds = 2,
}
