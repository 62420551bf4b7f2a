kr.kernel("csr_abs"):apply("block_reduce")
