-- The consumer's t is another element type than the producer's: one buffer cannot be both.
kr.kernel("produce"):apply("fuse", { consumer = "halve" })
