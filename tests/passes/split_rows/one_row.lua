-- split_rows on a kernel of one row (no row index): the row over 16 blocks, the workspace and the
-- ticket grid sized for one row.
kr.kernel("absmax"):apply("split_rows", { parts = 16 })
