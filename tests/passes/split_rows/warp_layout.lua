-- split_rows after warp_reduce: refused (the block layout only).
local k = kr.kernel("rowsum_w")
k:apply("warp_reduce")
k:apply("split_rows", { parts = 2 })
