-- split_rows with the row's 16 blocks resident together, then row_cache: a two-pass layernorm
-- (mean, then squared deviations, then the normalising sweep), each block keeping its part on chip
-- from the first sweep to the last; the parts meet in the workspace twice, and the parts a row gets
-- come from the grid (fewer for short rows).
local k = kr.kernel("lnorm")
k:apply("block_reduce", { threads = 128 })
k:apply("split_rows", { parts = 16, resident = true })
k:apply("row_cache", { steps = 2, shared = 8 })
