-- examples/mm2/problem.lua: T = A B, then D = T C, through a temporary buffer.
return {
  name = "mm2",
  source = "kernel.cu",
  sizes = {
    NI = { bench = 2048, test = { 1, 17, 70 } },
    NJ = { bench = 2048, test = { 5, 33, 129 } },
    NK = { bench = 2048, test = { 3, 65, 40 } },
    NL = { bench = 2048, test = { 2, 19, 101 } },
  },
  buffers = {
    { name = "A", dtype = "fp32", count = "NI * NK", role = "input", fill = { "uniform", -1, 1 } },
    { name = "B", dtype = "fp32", count = "NK * NJ", role = "input", fill = { "uniform", -1, 1 } },
    { name = "C", dtype = "fp32", count = "NJ * NL", role = "input", fill = { "uniform", -1, 1 } },
    { name = "T", dtype = "fp32", count = "NI * NJ", role = "temp" },
    { name = "D", dtype = "fp32", count = "NI * NL", role = "output" },
  },
  launches = {
    { kernel = "mm", grid = { "cdiv(NJ, 16)", "cdiv(NI, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "A", "B", "T", "NI", "NJ", "NK" } },
    { kernel = "mm", grid = { "cdiv(NL, 16)", "cdiv(NI, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "T", "C", "D", "NI", "NL", "NJ" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * NI * NJ * NK + 2 * NI * NL * NJ",
  bytes = "4 * (NI * NK + NK * NJ + NJ * NL + NI * NL)",
  seeds = 2,
}
