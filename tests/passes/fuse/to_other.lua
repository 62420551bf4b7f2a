kr.kernel("square"):apply("fuse", { consumer = "affine" })
