kr.kernel("spmv"):apply("warp_reduce", { threads = 32 })
