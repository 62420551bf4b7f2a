-- fp32 operands lowered to fp16 are converted as they are staged, which cp.async cannot do.
kr.allow_lowering()
local k = kr.kernel("matmul")
k:apply("tensor_core", { precision = "fp16" })
k:apply("double_buffer", { stages = 2 })
