-- split_rows over a cluster of 4 blocks, then row_cache: each block's part of the row kept on chip
-- by the (max, sum) sweep for the normalising sweep.
local k = kr.kernel("softmax")
k:apply("block_reduce")
k:apply("online_softmax")
k:apply("split_rows", { parts = 4, cluster = true })
k:apply("row_cache", { steps = 2, shared = 4 })
