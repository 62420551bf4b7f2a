kr.kernel("matmul"):apply("double_buffer", { stages = 5 })
