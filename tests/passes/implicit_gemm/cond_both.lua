-- The condition reads axes of both operands.
kr.kernel("conv"):apply("implicit_gemm")
