kr.kernel("produce"):apply("fuse", { consumer = "relu" })
