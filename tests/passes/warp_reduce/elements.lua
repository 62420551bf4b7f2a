-- warp_reduce on a kernel of one element a thread: a warp per row (an original block), 4 rows to a
-- block; the original's gridDim.x and blockDim.x become trailing int parameters.
kr.kernel("sumsq_partial"):apply("warp_reduce", { threads = 128 })
