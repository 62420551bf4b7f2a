kr.kernel("rowvar"):apply("welford")
