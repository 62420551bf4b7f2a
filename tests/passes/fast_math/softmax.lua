local k = kr.kernel("softmax")
kr.allow_lowering()
k:apply("fast_math")
