-- A row sum is no elementwise consumer.
kr.kernel("produce"):apply("fuse", { consumer = "row_sum" })
