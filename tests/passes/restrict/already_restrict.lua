local k = kr.kernel("add")
k:apply("restrict")
