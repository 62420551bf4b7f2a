local k = kr.kernel("gemm")
k:apply("tile", { block = { 64, 64 } })
k:apply("register_tile")
k:apply("split_k", { parts = 8 })
