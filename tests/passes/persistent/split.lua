-- persistent with split_k: refused (a part's block that is not the last returns early).
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 16 })
k:apply("split_k", { parts = 4 })
k:apply("persistent")
