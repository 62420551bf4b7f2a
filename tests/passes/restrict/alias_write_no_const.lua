local k = kr.kernel("shift")
k:apply("restrict")
