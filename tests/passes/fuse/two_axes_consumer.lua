kr.kernel("scale_rows"):apply("fuse", { consumer = "add_col_bias" })
