kr.kernel("taps3"):apply("unroll", { mode = "text", var = "t" })
