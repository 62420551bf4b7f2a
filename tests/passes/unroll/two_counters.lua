kr.kernel("copy_tiles"):apply("unroll", { mode = "text", var = "k" })
