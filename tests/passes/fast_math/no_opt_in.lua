-- fast_math lowers precision: without kr.allow_lowering() the driver refuses it.
local k = kr.kernel("softmax")
k:apply("fast_math")
