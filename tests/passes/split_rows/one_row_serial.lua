-- split_rows on a kernel with no row index whose loop is not strided over the block: refused.
kr.kernel("total"):apply("split_rows", { parts = 4 })
