-- tests/planted/specs/prev_sum.lua: each element plus its predecessor (prev_sum.cu).
return {
  name = "prev_sum",
  source = "prev_sum.cu",
  sizes = { n = { bench = 1048576, test = { 1, 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "prev_sum", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "out" } } },
  seeds = 2,
}
