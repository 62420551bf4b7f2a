local k = kr.kernel("hscale")
k:apply("vectorize", { width = 2 })
