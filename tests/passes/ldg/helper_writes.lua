local k = kr.kernel("relu")
k:apply("ldg")
