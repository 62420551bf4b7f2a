-- The loop reads three arrays: not a GEMM of two operands.
kr.kernel("conv"):apply("implicit_gemm")
