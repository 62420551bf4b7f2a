local k = kr.kernel("shift_rows")
k:apply("index_precompute")
