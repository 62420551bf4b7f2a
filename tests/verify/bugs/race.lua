-- tests/verify/bugs/race.lua: the problem for race.cu (the reference) and race_missing_sync.cu.
return {
  name = "adjacent",
  source = "race.cu",
  sizes = { n = { bench = 1048576, test = { 1, 100, 300, 1000 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "adjacent", grid = "cdiv(n, 128)", block = 128, args = { "n", "x", "out" } } },
}
