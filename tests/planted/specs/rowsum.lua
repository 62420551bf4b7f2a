-- tests/planted/specs/rowsum.lua: row sums (rowsum.cu). The test sizes stay at or below 255
-- columns; the benchmark size has 8192, past the caps and paths the rowsum_* cases plant.
return {
  name = "rowsum",
  source = "rowsum.cu",
  sizes = {
    rows = { bench = 1024, test = { 1, 3, 5, 2 } },
    cols = { bench = 8192, test = { 1, 100, 255, 37 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "rows * cols", role = "input" },
    { name = "out", dtype = "fp32", count = "rows", role = "output" },
  },
  launches = { { kernel = "rowsum", grid = "cdiv(rows, 64)", block = 64, args = { "rows", "cols", "x", "out" } } },
  seeds = 2,
}
