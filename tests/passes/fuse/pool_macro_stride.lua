-- A pool whose stride is a macro: refused, with the reason.
kr.kernel("bmm"):apply("fuse", { consumer = "pool2" })
