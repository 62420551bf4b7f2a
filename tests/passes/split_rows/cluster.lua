-- split_rows over a cluster of 4 blocks after block_reduce and online_softmax: one sweep for the
-- (max, sum) state, combined in rank order from the other blocks' shared memory, then the stores.
local k = kr.kernel("softmax")
k:apply("block_reduce")
k:apply("online_softmax")
k:apply("split_rows", { parts = 4, cluster = true })
