-- examples/mm2/recipe_tiled.lua: the contraction schedule (strict fp32): 128 x 128 block tiles
-- with the operands staged in padded shared memory, k tiles of 16 loaded by cp.async two tiles
-- deep, 8 x 8 outputs per thread in registers: the best of a sweep on the H200
-- (bench/results/schedule-2026-12-01.json). Sizes are -D parameters for sweeps.
local k = kr.kernel("mm")
k:apply("tile", { block = { kr.param("bm", 128), kr.param("bn", 128) }, k = kr.param("bk", 16) })
k:apply("register_tile", { thread = { kr.param("tm", 8), kr.param("tn", 8) } })
local stages = kr.param("stages", 2)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
