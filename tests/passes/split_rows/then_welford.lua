local k = kr.kernel("lnorm")
k:apply("split_rows", { parts = 4 })
k:apply("welford")
