-- store = false is for max-pool consumers: refused for an elementwise one.
kr.kernel("matmul"):apply("fuse", { consumer = "relu", store = false })
