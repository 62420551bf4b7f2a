kr.kernel("hsum"):apply("block_reduce")
