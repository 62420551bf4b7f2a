-- expect: launches[1] 'scale': buffer 'x' has dtype fp32, but parameter 'x' of kernel 'scale' is 'const double *__restrict__' (tests/verify/specs/double_kernel.cu:3:
-- fp32 buffers handed to double * parameters: the buffer, launch, parameter and both types.
return {
  source = "double_kernel.cu",
  sizes = { n = { bench = 1024, test = { 7, 100 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input" },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
  },
  launches = { { kernel = "scale", grid = "cdiv(n, 256)", block = 256, args = { "n", "x", "y" } } },
}
