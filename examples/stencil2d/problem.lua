-- examples/stencil2d/problem.lua: one Jacobi sweep of a 5-point stencil on an H x W fp32 grid
-- (c0 = c1 = 0.2: the average of a point and its four neighbours; boundary copied).
-- Benchmark: 8192 x 8192. Tests: a single point, a grid that is all boundary (2 x 7), and
-- non-square grids that are no multiple of 16.
return {
  name = "stencil2d",
  source = "kernel.cu",
  sizes = {
    H = { bench = 8192, test = { 1, 2, 37, 100, 3 } },
    W = { bench = 8192, test = { 1, 7, 19, 133, 300 } },
  },
  buffers = {
    { name = "in",  dtype = "fp32", count = "H * W", role = "input", fill = { "uniform", -1, 1 } },
    { name = "out", dtype = "fp32", count = "H * W", role = "output" },
  },
  launches = {
    { kernel = "stencil2d", grid = { "cdiv(W, 16)", "cdiv(H, 16)" }, block = { 16, 16 }, shmem = 0,
      args = { "H", "W", 0.2, 0.2, "in", "out" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "6 * H * W",
  bytes = "8 * H * W",
  seeds = 3,
}
