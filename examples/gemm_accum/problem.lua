-- examples/gemm_accum/problem.lua: C = alpha*A*B + beta*C with the sizes fixed by #define in the
-- kernel (NI x NK times NK x NJ, none a multiple of a tile). The spec's sizes mirror the defines; the test sizes are the
-- same because the kernel's loops are compile-time bounds (a smaller test would need other
-- defines), so the emulator runs the whole problem.
return {
  name = "gemm_accum",
  source = "kernel.cu",
  sizes = {
    NI = { bench = 517, test = { 517 } },
    NJ = { bench = 613, test = { 613 } },
    NK = { bench = 131, test = { 131 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "NI * NK", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "fp32", count = "NK * NJ", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "NI * NJ", role = "inout", fill = { "uniform", -1, 1 } },
  },
  launches = {
    { kernel = "gemm", grid = { "cdiv(NJ, 32)", "cdiv(NI, 8)" }, block = { 32, 8 }, shmem = 0,
      args = { 1.5, 1.2, "A", "B", "C" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * NI * NJ * NK",
  bytes = "4 * (NI * NK + NK * NJ + 2 * NI * NJ)",
  seeds = 1,
}
