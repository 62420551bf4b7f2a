local k = kr.kernel("rowvar")
k:apply("warp_reduce", { threads = 128 })
k:apply("welford")
