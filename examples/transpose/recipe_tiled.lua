-- examples/transpose/recipe_tiled.lua: the data-movement schedule. A block moves a 64 x 32 tile
-- (64 rows of the output, 32 of the input) through padded shared memory (one float of padding a
-- row, so neither the column-order reads nor the row-order writes of the tile collide in a bank):
-- the loads from `in` and the stores to `out` are both coalesced. 64 x 32 was the fastest of eight
-- tile shapes on the H200 (bench/results/schedule-2026-12-01b.json). Exact: the same values are
-- moved.
kr.kernel("transpose"):apply("tile", { block = { kr.param("bm", 64), kr.param("bn", 32) } })
