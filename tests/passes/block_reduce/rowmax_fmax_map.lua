kr.kernel("shift_by_max"):apply("block_reduce", { threads = 32 })
