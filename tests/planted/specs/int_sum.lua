-- tests/planted/specs/int_sum.lua: an integer sum into one zeroed element (int_sum.cu); integers,
-- so every order of the additions gives the same result.
return {
  name = "int_sum",
  source = "int_sum.cu",
  sizes = { n = { bench = 16777216, test = { 1, 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "int32", count = "n", role = "input", fill = { "ints", 0, 9 } },
    { name = "out", dtype = "int32", count = "1", role = "inout", fill = { "zero" } },
  },
  launches = { { kernel = "int_sum", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "out" } } },
  seeds = 2,
}
