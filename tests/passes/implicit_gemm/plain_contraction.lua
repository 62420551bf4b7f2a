-- A plain matrix product is tile's: implicit_gemm refuses it.
kr.kernel("matmul"):apply("implicit_gemm")
