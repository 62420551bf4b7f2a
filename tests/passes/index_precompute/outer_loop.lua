-- Hoist out of the outer loop (index 0): only the (b, c) part is invariant there.
local k = kr.kernel("scale_rows")
k:apply("index_precompute", { loop = 0 })
