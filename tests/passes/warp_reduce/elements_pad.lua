-- warp_reduce on one element a thread padded with a value other than the tree's identity: refused.
kr.kernel("block_max"):apply("warp_reduce")
