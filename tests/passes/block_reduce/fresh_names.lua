kr.kernel("clash"):apply("block_reduce")
