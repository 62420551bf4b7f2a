local k = kr.kernel("saxpy")
k:apply("vectorize")
