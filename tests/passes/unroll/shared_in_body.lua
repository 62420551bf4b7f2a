kr.kernel("staged_sum"):apply("unroll", { mode = "text" })
