kr.kernel("matmul"):apply("split_k", { parts = 1 })
