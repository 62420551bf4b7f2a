local k = kr.kernel("blur")
k:apply("unroll")
