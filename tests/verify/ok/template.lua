-- tests/verify/ok/template.lua: fp32 buffers handed to `const T *` (T a template parameter),
-- `volatile real *` (a typedef) and `void *` are accepted by the dtype check.
return {
  source = "template.cu",
  sizes = { n = { bench = 1024, test = { 7 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
    { name = "scratch", dtype = "int32", count = "n", role = "temp" },
  },
  launches = { { kernel = "scale_t<float>", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "y", "scratch" } } },
  seeds = 1,
}
