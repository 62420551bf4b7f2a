local k = kr.kernel("stencil")
k:apply("unroll", { var = "j", factor = 2 })
