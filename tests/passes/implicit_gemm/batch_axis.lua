-- A batch axis read by both operands has no place in one GEMM view.
kr.kernel("bmm"):apply("implicit_gemm")
