kr.kernel("relu_half_grid"):apply("vectorize", { width = 2 })
