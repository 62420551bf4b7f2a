-- expect: problem: unknown field 'widget' (fields: name, source, sizes, buffers, launches, entry, tolerance, flops, bytes, seeds, include, defines)
-- A field nothing like a known one lists the fields there are.
return {
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 1024, test = { 7, 100 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, args = { "n", 2.0, "x", "y", "out" } } },
  widget = 3,
}
