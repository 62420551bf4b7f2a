-- The pool reads t in another layout than the product stores it: refused.
kr.kernel("bmm"):apply("fuse", { consumer = "pool2" })
