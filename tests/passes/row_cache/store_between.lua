local k = kr.kernel("centre_var")
k:apply("block_reduce", { threads = 256 })
k:apply("row_cache", { steps = 4 })
