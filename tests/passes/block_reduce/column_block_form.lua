kr.kernel("rowmax_blk"):apply("block_reduce", { layout = "column" })
