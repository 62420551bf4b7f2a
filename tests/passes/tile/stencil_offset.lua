kr.kernel("shift"):apply("tile")
