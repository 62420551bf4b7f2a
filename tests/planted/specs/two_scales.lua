-- tests/planted/specs/two_scales.lua: scale then scale2 (two_scales.cu); a recipe that changes
-- the launch of scale must leave scale2's launch alone.
return {
  name = "two_scales",
  source = "two_scales.cu",
  sizes = { n = { bench = 1048576, test = { 1, 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
    { name = "z", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "scale", grid = "cdiv(n, 256)", block = 256, args = { "n", 1.5, "x", "y" } },
    { kernel = "scale2", grid = "cdiv(n, 256)", block = 256, args = { "n", "y", "z" } },
  },
  seeds = 2,
}
