kr.kernel("matmul"):apply("tensor_core")
