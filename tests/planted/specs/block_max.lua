-- tests/planted/specs/block_max.lua: per-chunk maxima (block_max.cu).
return {
  name = "block_max",
  source = "block_max.cu",
  sizes = { n = { bench = 16777216, test = { 1, 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "cdiv(n, 256)", role = "output" },
  },
  launches = { { kernel = "block_max", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "out" } } },
  seeds = 2,
}
