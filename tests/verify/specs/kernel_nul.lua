-- expect: launches[1]: 'kernel' "vector_add\0..." contains a NUL byte
-- A kernel name with a NUL byte would name another kernel to C.
return {
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 1024, test = { 7, 100 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "vector_add\0evil", grid = "cdiv(n, 256)", block = 256, args = { "n", 2.0, "x", "y", "out" } } },
}
