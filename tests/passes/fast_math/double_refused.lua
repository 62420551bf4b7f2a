local k = kr.kernel("dsoftmax")
kr.allow_lowering()
k:apply("fast_math")
