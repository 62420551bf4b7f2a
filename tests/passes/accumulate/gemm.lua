kr.kernel("gemm"):apply("accumulate")
