-- examples/reduce_sum/recipe_reduce.lua: both launches rescheduled as row reductions.
--   reduce_partial: its rows are its blocks of 256 elements, one a thread; one warp per row instead
--                   (warp_reduce), 4 rows to a block, so that each lane has 8 loads of the row to
--                   make rather than one. The kernel takes the original launch's gridDim.x and
--                   blockDim.x (the row count and the row's length) as two more int arguments.
--   reduce_final:   one row (it has no row index) of cdiv(n, 256) partial sums, which one block
--                   walked; split over 64 blocks (split_rows), so the partials are read by many
--                   SMs, not one. The parts meet in a workspace and are combined in a fixed order.
-- On the H200 (bench/results/reduce-2026-12-02e.json, calls 3 and 4): 0.0784-0.0785 ms with 64
-- parts, 0.0787-0.0789 with 32, 0.0796 with 16; a warp walking 2 to 16 rows one after another
-- (a trial not kept) was slower, 0.0790 to 0.0823 ms.
-- Both reassociate the sum; the result stays within the spec's fp32 tolerance.
local p = kr.kernel("reduce_partial")
p:apply("warp_reduce", { threads = kr.param("threads", 128) })
local f = kr.kernel("reduce_final")
f:apply("split_rows", { parts = kr.param("parts", 64) })
