local k = kr.kernel("pick")
k:apply("restrict")
