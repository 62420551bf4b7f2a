-- store = false: the consumer alone reads t (recorded); the call says so by its name, kr_fuse_only_pool2.
kr.kernel("bmm"):apply("fuse", { consumer = "pool2", store = false })
