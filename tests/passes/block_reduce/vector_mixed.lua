kr.kernel("rmsnorm_mixed"):apply("block_reduce", { threads = 128 })
