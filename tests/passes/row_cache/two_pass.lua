local k = kr.kernel("normalize")
k:apply("block_reduce", { threads = 256 })
k:apply("row_cache", { steps = 4 })
