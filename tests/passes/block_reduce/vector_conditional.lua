kr.kernel("masked_dot"):apply("block_reduce", { threads = 64 })
