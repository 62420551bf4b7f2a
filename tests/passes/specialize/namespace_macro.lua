-- specialize on a namespaced template named with a macro-sized argument, then restrict on the same handle.
local k = kr.kernel("ops::axpy<float, TILE * 8>")
k:apply("specialize")
k:apply("restrict")
