local k = kr.kernel("tile_copy")
k:apply("index_precompute")
