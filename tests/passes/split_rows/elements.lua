-- split_rows on a kernel of one element a thread: refused (its rows are the original's blocks, so
-- their count is the launch's, which the workspace's size cannot be computed from).
kr.kernel("sumsq_partial"):apply("split_rows", { parts = 2 })
