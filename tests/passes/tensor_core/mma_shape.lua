-- api mma computes tf32 in m16n8k8 products only.
kr.allow_lowering()
kr.kernel("matmul"):apply("tensor_core", { precision = "tf32", shape = { 16, 16, 16 } })
