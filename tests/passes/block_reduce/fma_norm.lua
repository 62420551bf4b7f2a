kr.kernel("norm_rows"):apply("block_reduce", { threads = 128 })
