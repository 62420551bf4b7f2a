kr.kernel("matmul"):apply("accumulate")
