kr.kernel("softmax_shift"):apply("block_reduce", { threads = 1024 })
