local k = kr.kernel("sgemm")
k:apply("vectorize")
