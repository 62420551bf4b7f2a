kr.kernel("crsum"):apply("block_reduce")
