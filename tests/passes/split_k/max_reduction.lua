kr.kernel("maxprod"):apply("split_k", { parts = 2 })
