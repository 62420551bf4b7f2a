local k = kr.kernel("parity")
k:apply("vectorize")
