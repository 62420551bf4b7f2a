-- tile on mm's explicit specialization for float.
kr.kernel("mm<float>"):apply("tile", { block = { 32, 32 }, k = 8 })
