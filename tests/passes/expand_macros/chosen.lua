-- expand_macros on IDX alone.
kr.kernel("k"):apply("expand_macros", { macros = { "IDX" } })
