-- An average pool: a sum, refused.
kr.kernel("bmm"):apply("fuse", { consumer = "pool2" })
