kr.kernel("lastmax"):apply("warp_reduce", { threads = 64 })
