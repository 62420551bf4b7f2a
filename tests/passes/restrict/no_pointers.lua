local k = kr.kernel("spin")
k:apply("restrict")
