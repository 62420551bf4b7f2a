local k = kr.kernel("skip")
k:apply("unroll")
