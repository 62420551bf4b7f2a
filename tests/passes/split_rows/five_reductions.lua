kr.kernel("row_stats"):apply("split_rows", { parts = 4 })
