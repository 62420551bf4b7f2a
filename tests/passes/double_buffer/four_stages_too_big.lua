-- One 128 x 128 tile with k = 64 fits in shared memory (66 KiB); four of them do not.
local k = kr.kernel("sgemm_nn")
k:apply("tile", { block = { 128, 128 }, k = 64 })
k:apply("double_buffer", { stages = 4 })
