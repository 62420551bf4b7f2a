-- tf32 has no 16 x 16 x 16 WMMA shape.
kr.allow_lowering()
kr.kernel("matmul"):apply("tensor_core", { precision = "tf32", api = "wmma", shape = { 16, 16, 16 } })
