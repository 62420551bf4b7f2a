kr.kernel("rowdiff"):apply("block_reduce", { threads = 128 })
