kr.kernel("conv1d_same"):apply("implicit_gemm")
