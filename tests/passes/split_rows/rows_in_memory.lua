kr.kernel("rowsum_dyn"):apply("split_rows", { parts = 8 })
