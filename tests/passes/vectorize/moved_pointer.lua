kr.kernel("scale_batch"):apply("vectorize", { params = { "x", "y" } })
