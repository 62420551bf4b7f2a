local k = kr.kernel("lut")
k:apply("vectorize")
