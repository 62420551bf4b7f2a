local k = kr.kernel("waves")
kr.allow_lowering()
k:apply("fast_math", { ops = {"exp", "tanh"} })
