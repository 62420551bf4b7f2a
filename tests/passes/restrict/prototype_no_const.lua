local k = kr.kernel("neg")
k:apply("restrict")
