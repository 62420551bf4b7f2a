-- examples/transpose/recipe_tiled.lua: the data-movement schedule. A block moves a 32 x 32 tile
-- through padded shared memory (33 floats a row, so neither the column-order reads nor the
-- row-order writes of the tile collide in a bank): the loads from `in` and the stores to `out`
-- are both coalesced. Exact: the same values are moved.
kr.kernel("transpose"):apply("tile", { block = { kr.param("bm", 32), kr.param("bn", 32) } })
