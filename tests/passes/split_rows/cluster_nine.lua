-- split_rows over a cluster of 9 blocks: refused (a portable cluster has at most 8).
local k = kr.kernel("rowsum")
k:apply("block_reduce")
k:apply("split_rows", { parts = 9, cluster = true })
