-- A max-pool consumer: its outputs reached from each stored element, by atomic maxima into y.
kr.kernel("bmm"):apply("fuse", { consumer = "pool2" })
