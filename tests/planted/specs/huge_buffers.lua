-- tests/planted/specs/huge_buffers.lua: examples/vector_add with buffers of 2^40 floats (4 TiB
-- each) at the second test size: the spec must be refused before anything is allocated.
return {
  name = "vector_add",
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 16777216, test = { 7, 16777216 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n * 65536", role = "input" },
    { name = "y", dtype = "fp32", count = "n * 65536", role = "input" },
    { name = "out", dtype = "fp32", count = "n * 65536", role = "output" },
  },
  launches = {
    { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, args = { "n", 2.5, "x", "y", "out" } },
  },
  seeds = 1,
}
