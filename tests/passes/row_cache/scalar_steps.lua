local k = kr.kernel("scale")
k:apply("block_reduce", { vector = false })
k:apply("row_cache")
