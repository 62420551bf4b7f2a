kr.kernel("colsum2"):apply("block_reduce", { threads = 32 })
