-- With min_ops = 1 the single product is worth hoisting.
local k = kr.kernel("copy2d")
k:apply("index_precompute", { min_ops = 1 })
