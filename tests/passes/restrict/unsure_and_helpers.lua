local k = kr.kernel("copy_via")
k:apply("restrict")
