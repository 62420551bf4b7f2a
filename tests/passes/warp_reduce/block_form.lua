kr.kernel("rowmax_blk"):apply("warp_reduce")
