kr.kernel("rowargmin"):apply("block_reduce", { threads = 64 })
