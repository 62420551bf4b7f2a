-- examples/stencil2d/recipe_tiled.lua: the stencil's schedule. A block computes a BM x BN tile of
-- outputs (32 x 64 by default); `in` and its halo (one row above and below, one column left and
-- right, rounded to 16 bytes) are loaded once per block into shared memory, 16 bytes at a time
-- where the rows are aligned, so every element of `in` is read from memory about once. The
-- threads of a warp then take consecutive outputs of a row from the tile and store them
-- coalesced. Exact: each output is the same expression of the same values.
kr.kernel("stencil2d"):apply("tile", { block = { kr.param("bm", 32), kr.param("bn", 64) } })
