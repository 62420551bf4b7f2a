local k = kr.kernel("matmul_tn")
k:apply("double_buffer")
