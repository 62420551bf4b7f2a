local k = kr.kernel("mix")
k:apply("vectorize", { width = kr.param("width", 4) })
