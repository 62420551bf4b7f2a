-- tests/planted/specs/plus_one.lua: add one to every element (plus_one.cu), in blocks of 128.
return {
  name = "plus_one",
  source = "plus_one.cu",
  sizes = { n = { bench = 1048576, test = { 1, 300, 1000 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "plus_one", grid = "cdiv(n, 128)", block = 128, args = { "n", "x", "out" } } },
  seeds = 2,
}
