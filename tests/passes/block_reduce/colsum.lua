kr.kernel("colsum2"):apply("block_reduce")
