kr.kernel("lnorm"):apply("welford")
