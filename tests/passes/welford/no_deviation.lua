kr.kernel("moments"):apply("welford")
