local k = kr.kernel("copy")
k:apply("vectorize", { width = 3 })
