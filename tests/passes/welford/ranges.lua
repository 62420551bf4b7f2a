kr.kernel("wranges"):apply("welford")
