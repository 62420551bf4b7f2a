-- block_reduce on a kernel of one element a thread: a block of 64 threads per row (an original
-- block), the launch's grid kept; the original's gridDim.x and blockDim.x become trailing ints.
kr.kernel("tile_max"):apply("block_reduce", { threads = 64 })
