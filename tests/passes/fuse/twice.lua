-- Two stores of t: which one the consumer follows would be a guess.
kr.kernel("produce"):apply("fuse", { consumer = "relu" })
