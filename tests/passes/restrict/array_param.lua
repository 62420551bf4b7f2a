local k = kr.kernel("zero")
k:apply("restrict", { params = "out" })
