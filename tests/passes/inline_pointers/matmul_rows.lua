-- inline_pointers on a alone.
kr.kernel("mm"):apply("inline_pointers", { pointers = { "a" } })
