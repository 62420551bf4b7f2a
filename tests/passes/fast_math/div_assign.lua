local k = kr.kernel("normalize")
kr.allow_lowering()
k:apply("fast_math", { ops = "div" })
