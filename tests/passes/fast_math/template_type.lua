local k = kr.kernel("scale")
kr.allow_lowering()
k:apply("fast_math")
