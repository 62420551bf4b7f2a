-- expect: the handle of kernel 'vector_add' had its name changed to 'other'
-- A handle cannot be retargeted by editing its name field.
local k = kr.kernel("vector_add")
k.name = "other"
k:apply("restrict")
