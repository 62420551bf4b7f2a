-- The consumer's alpha is no parameter of the producer.
kr.kernel("produce"):apply("fuse", { consumer = "scale" })
