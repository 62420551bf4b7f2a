local k = kr.kernel("scale")
k:apply("block_reduce")
k:apply("split_rows", { parts = 4 })
k:apply("row_cache")
