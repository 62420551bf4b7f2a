-- inline_pointers on a alone.
kr.kernel("k"):apply("inline_pointers", { pointers = { "a" } })
