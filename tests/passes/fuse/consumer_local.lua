kr.kernel("conv_out"):apply("fuse", { consumer = "normalise" })
