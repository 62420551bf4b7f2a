-- The consumer skips some elements the producer stores: its guard is more than its bound.
kr.kernel("produce"):apply("fuse", { consumer = "half_relu" })
