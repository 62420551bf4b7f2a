-- split_rows over a cluster of 17 blocks: refused (sm_90 runs clusters of at most 16).
local k = kr.kernel("rowsum")
k:apply("block_reduce")
k:apply("split_rows", { parts = 17, cluster = true })
