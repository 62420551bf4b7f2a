-- The pool scales its maximum: refused.
kr.kernel("bmm"):apply("fuse", { consumer = "pool2" })
