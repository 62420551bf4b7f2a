-- block_reduce on a row that is blockIdx.y: the rewrite walks row blockIdx.x of a grid of (grid.y, 1).
local k = kr.kernel("softmax_y")
k:apply("block_reduce", { threads = 128 })
