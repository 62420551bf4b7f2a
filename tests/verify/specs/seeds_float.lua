-- expect: problem: 'seeds' must be a positive integer (at most 1000000), got 2.5
-- seeds is a count; 2.5 is not rounded.
return {
  source = "../../../examples/vector_add/kernel.cu",
  sizes = { n = { bench = 1024, test = { 7, 100 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "input" },
    { name = "out", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "vector_add", grid = "cdiv(n, 256)", block = 256, args = { "n", 2.0, "x", "y", "out" } } },
  seeds = 2.5,
}
