-- expect: bad self for try of kernel 'vector_add'
-- k.try("ldg") (a dot for a colon): the pass name is not a handle.
local k = kr.kernel("vector_add")
k.try("ldg")
