-- expect: launches[1]: unknown field 'blocks' (did you mean 'block'?)
-- Unknown fields are refused inside a launch.
return {
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 1024, test = { 7, 100 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, blocks = 128, args = { "n", 2.0, "x", "y", "out" } } },
}
