-- split_rows on a thread-per-row sum: block_reduce's defaults, 3 parts.
kr.kernel("rowsum"):apply("split_rows", { parts = 3 })
