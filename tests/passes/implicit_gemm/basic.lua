-- implicit_gemm with its defaults: 64 x 64 tiles, k slices of 16, 4 x 4 outputs per thread.
kr.kernel("conv2d"):apply("implicit_gemm")
