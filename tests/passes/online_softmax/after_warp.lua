local k = kr.kernel("smx")
k:apply("warp_reduce", { threads = 64 })
k:apply("online_softmax")
