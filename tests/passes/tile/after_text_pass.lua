local k = kr.kernel("matmul")
k:apply("restrict")
k:apply("tile")
