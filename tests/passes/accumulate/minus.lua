kr.kernel("residual"):apply("accumulate")
