-- persistent { order = "descending" }: block b walks the m tiles from the last (tiles - 1 - b, then back by gridDim.y).
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 16 })
k:apply("register_tile", { thread = { 4, 4 } })
k:apply("persistent", { order = "descending" })
