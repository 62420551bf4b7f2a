local k = kr.kernel("rowsum")
k:apply("block_reduce")
k:apply("row_cache")
