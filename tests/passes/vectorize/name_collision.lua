local k = kr.kernel("square")
k:apply("vectorize")
