-- examples/spmv_csr/problem.lua: y = A * x for a sparse m x n fp32 matrix in CSR form with
-- m * k non-zeros (k per row on average, random row lengths), int32 indices.
-- Benchmark: m = n = 2^20, k = 32 (33.5 million non-zeros). Tests: a 1 x 1 matrix, and small
-- ones with k from 1 to 17 (k <= n, so every row fits).
return {
  name = "spmv_csr",
  source = "kernel.cu",
  sizes = {
    m = { bench = 1048576, test = { 1, 7, 100, 1000, 37 } },
    n = { bench = 1048576, test = { 1, 13, 50, 999, 5 } },
    k = { bench = 32, test = { 1, 3, 17, 8, 5 } },
  },
  buffers = {
    { name = "rowptr", dtype = "int32", count = "m + 1", role = "input",
      fill = { "csr_rowptr", nnz = "m * k", cols = "n" } },
    { name = "colind", dtype = "int32", count = "m * k", role = "input",
      fill = { "csr_colind", rowptr = "rowptr", cols = "n" } },
    { name = "values", dtype = "fp32", count = "m * k", role = "input", fill = { "uniform", -1, 1 } },
    { name = "x",      dtype = "fp32", count = "n", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y",      dtype = "fp32", count = "m", role = "output" },
  },
  launches = {
    { kernel = "spmv_csr", grid = "cdiv(m, 256)", block = 256, shmem = 0,
      args = { "m", "rowptr", "colind", "values", "x", "y" } },
  },
  tolerance = { rtol = 1e-6 },
  flops = "2 * m * k",
  bytes = "4 * (m + 1) + 8 * m * k + 4 * n + 4 * m",
  seeds = 3,
}
