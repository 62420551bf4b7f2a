-- tests/planted/specs/cluster_softmax.lua: the block-per-row softmax of
-- tests/passes/split_rows/cluster.cu, launched the way its split over a cluster of 4 blocks is
-- (grid = rows * 4, 256 threads): the original's blocks past the last row return, so it is the
-- reference at that launch. Rows of 1 to 4099 elements (the 4099-long ones take 16-byte steps).
return {
  name = "cluster_softmax",
  source = "../../passes/split_rows/cluster.cu",
  sizes = {
    rows = { bench = 64, test = { 1, 3, 37, 1, 3, 37 } },
    cols = { bench = 65536, test = { 1, 3, 31, 33, 1000, 4099 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "rows * cols", role = "input", fill = { "normal", 0, 3 } },
    { name = "y", dtype = "fp32", count = "rows * cols", role = "output" },
  },
  launches = {
    { kernel = "softmax", grid = "rows * 4", block = 256, shmem = 0, args = { "x", "y", "rows", "cols" } },
  },
  tolerance = { rtol = 1e-6 },
  seeds = 2,
}
