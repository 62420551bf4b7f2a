-- A name that is an object-like macro, not a function-like one.
kr.kernel("k"):apply("expand_macros", { macros = { "N" } })
