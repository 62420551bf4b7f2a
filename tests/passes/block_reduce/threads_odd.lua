kr.kernel("rowsum"):apply("block_reduce", { threads = 96 + 4 })
