local k = kr.kernel("rowscale")
k:apply("vectorize")
