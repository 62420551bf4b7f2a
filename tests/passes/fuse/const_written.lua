-- The consumer writes y, which the producer declares const.
kr.kernel("produce"):apply("fuse", { consumer = "copy_out" })
