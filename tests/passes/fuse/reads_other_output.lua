kr.kernel("gated"):apply("fuse", { consumer = "apply_gate" })
