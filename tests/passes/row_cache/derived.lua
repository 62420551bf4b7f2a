local k = kr.kernel("softmax")
k:apply("block_reduce", { threads = 512 })
k:apply("row_cache", { steps = 4, shared = 96 })
