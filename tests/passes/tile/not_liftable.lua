kr.kernel("hist"):apply("tile")
