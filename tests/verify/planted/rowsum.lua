-- tests/verify/planted/rowsum.lua: row sums of a rows x cols matrix, tested up to 200 columns
-- (benchmark 4096): a loop capped at 256 columns (rowsum_capped.cu) passes every test size.
return {
  name = "rowsum",
  source = "rowsum.cu",
  sizes = {
    rows = { bench = 1024, test = { 1, 3, 5 } },
    cols = { bench = 4096, test = { 1, 100, 200 } },
  },
  buffers = {
    { name = "x",   dtype = "fp32", count = "rows * cols", role = "input", fill = { "uniform", -1, 1 } },
    { name = "out", dtype = "fp32", count = "rows", role = "output" },
  },
  launches = {
    { kernel = "rowsum", grid = "rows", block = 128, shmem = 0, args = { "rows", "cols", "x", "out" } },
  },
  tolerance = { rtol = 1e-5 },
  seeds = 2,
}
