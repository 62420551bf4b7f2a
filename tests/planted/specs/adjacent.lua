-- tests/planted/specs/adjacent.lua: adjacent sums in blocks of 128 through shared memory (adjacent.cu).
return {
  name = "adjacent",
  source = "adjacent.cu",
  sizes = { n = { bench = 1048576, test = { 1, 100, 300, 1000 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "adjacent", grid = "cdiv(n, 128)", block = 128, args = { "n", "x", "out" } } },
  seeds = 2,
}
