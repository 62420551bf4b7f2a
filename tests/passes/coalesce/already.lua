kr.kernel("matmul"):apply("coalesce")
