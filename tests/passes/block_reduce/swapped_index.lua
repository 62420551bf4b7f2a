kr.kernel("rowsum"):apply("block_reduce")
