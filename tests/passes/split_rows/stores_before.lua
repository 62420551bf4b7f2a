-- split_rows refuses a store before the last reduction.
kr.kernel("scale_then_sum"):apply("split_rows", { parts = 2 })
