kr.kernel("pad_rows"):apply("unroll", { mode = "text", loop = 0 })
