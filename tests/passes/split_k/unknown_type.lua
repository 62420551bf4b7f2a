kr.kernel("matmul_r"):apply("split_k", { parts = 4 })
