-- tile keeps both operands in global memory (an empty stage list): there are no shared buffers
-- for double_buffer to pipeline.
local k = kr.kernel("batched_gemv")
k:apply("tile", { block = { 64, 64 }, k = 16, stage = {} })
k:apply("double_buffer", { stages = 2 })
