-- The store is the whole body of the guard's `if`: the fused statement joins it in braces.
kr.kernel("produce"):apply("fuse", { consumer = "relu" })
