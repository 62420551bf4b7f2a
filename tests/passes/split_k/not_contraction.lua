kr.kernel("transpose"):apply("split_k", { parts = 4 })
