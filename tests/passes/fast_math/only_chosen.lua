local k = kr.kernel("act")
kr.allow_lowering()
k:apply("fast_math")
