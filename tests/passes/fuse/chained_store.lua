kr.kernel("saxpy2"):apply("fuse", { consumer = "square" })
