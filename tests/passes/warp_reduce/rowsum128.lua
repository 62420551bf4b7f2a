kr.kernel("matvec2"):apply("warp_reduce", { threads = 128 })
