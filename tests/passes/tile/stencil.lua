kr.kernel("stencil2d"):apply("tile")
