-- persistent after tile and register_tile: the grid along m is min(tiles, sms x the blocks an SM holds), each block
-- walking the m tiles blockIdx.y, + gridDim.y, with a barrier between tiles.
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 16 })
k:apply("register_tile", { thread = { 4, 4 } })
k:apply("persistent")
