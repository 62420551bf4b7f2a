local k = kr.kernel("lse")
k:apply("block_reduce", { threads = 512 })
k:apply("online_softmax")
