kr.kernel("rowsum"):apply("warp_reduce", { threads = 48 })
