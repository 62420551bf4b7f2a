-- expect: launches[1] 'vector_add': buffer 'x' has dtype int32, but parameter 'x' of kernel 'vector_add' is 'float *'
-- An int32 buffer handed to a float * parameter.
return {
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 1024, test = { 7, 100 } } },
  buffers = {
    { name = "x", dtype = "int32", count = "n", role = "input", fill = { "ints", 0, 9 } },
    { name = "y", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, args = { "n", 2.0, "x", "y", "out" } } },
}
