-- The producer reads y, which the consumer writes: another thread's element may already be fused over.
kr.kernel("produce"):apply("fuse", { consumer = "copy_out" })
