-- split_rows refuses resident = true with cluster = true: they are two ways for the parts to meet.
local k = kr.kernel("lnorm")
k:apply("block_reduce")
k:apply("split_rows", { parts = 4, resident = true, cluster = true })
