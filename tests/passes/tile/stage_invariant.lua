-- s[i] is the same for every k: there is no k tile of it to stage.
kr.kernel("scaled_mm"):apply("tile", { stage = { "s", "A", "B" } })
