-- tf32 lowers precision: refused without kr.allow_lowering().
kr.kernel("matmul"):apply("tensor_core", { precision = "tf32" })
