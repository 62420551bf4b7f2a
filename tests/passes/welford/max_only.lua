kr.kernel("rmax"):apply("welford")
