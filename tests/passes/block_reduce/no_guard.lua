kr.kernel("rowsum_ng"):apply("block_reduce")
