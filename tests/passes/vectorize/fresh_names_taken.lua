local k = kr.kernel("scale")
k:apply("vectorize")
