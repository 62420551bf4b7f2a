local k = kr.kernel("saxpy")
k:apply("vectorize")
k:apply("ldg")
k:apply("restrict")
