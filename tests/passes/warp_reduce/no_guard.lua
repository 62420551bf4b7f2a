kr.kernel("rowsum_ng"):apply("warp_reduce")
