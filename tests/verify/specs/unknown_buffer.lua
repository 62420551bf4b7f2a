-- expect: unknown_buffer.lua:8:19: error: buffers[2] 'y': unknown field 'dtyp' (did you mean 'dtype'?)
-- Unknown fields are refused inside a buffer.
return {
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 1024, test = { 7, 100 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtyp = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, args = { "n", 2.0, "x", "y", "out" } } },
}
