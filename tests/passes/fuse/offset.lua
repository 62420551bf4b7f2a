-- The consumer reads a neighbour of its element: not elementwise.
kr.kernel("produce"):apply("fuse", { consumer = "shift" })
