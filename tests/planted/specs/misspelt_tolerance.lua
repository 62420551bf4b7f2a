-- tests/planted/specs/misspelt_tolerance.lua: examples/vector_add with 'tolerance' misspelt 'tolerence': an error, not a silently ignored field.
return {
  name = "vector_add",
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 16777216, test = { 1, 7, 1000 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, args = { "n", 2.5, "x", "y", "out" } },
  },
  tolerence = { rtol = 1e-6 },
  seeds = 2,
}
