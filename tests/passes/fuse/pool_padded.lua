-- A padded pool: its maximum under a condition, refused.
kr.kernel("bmm"):apply("fuse", { consumer = "pool2" })
