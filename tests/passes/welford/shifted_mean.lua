kr.kernel("wmeanother"):apply("welford")
