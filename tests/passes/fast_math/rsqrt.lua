local k = kr.kernel("layernorm")
kr.allow_lowering()
k:apply("fast_math", { ops = {"rsqrt", "div"} })
