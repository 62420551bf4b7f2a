local k = kr.kernel("noisy")
k:apply("vectorize")
