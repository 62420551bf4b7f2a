-- examples/gemm_accum/recipe_tiled.lua: the contraction schedule (strict fp32): 64 x 64 block tiles with
-- the operands staged in padded shared memory, k tiles of 16 loaded by cp.async three tiles deep,
-- 4 x 4 outputs per thread in registers: the best of a sweep on the H200 when the defines were
-- 777 x 911 x 523 (10.1x the naive kernel; bench/results/schedule-2026-12-01.json); small
-- problems fill more SMs with smaller tiles. Sizes are -D parameters for sweeps.
local k = kr.kernel("gemm")
k:apply("tile", { block = { kr.param("bm", 64), kr.param("bn", 64) }, k = kr.param("bk", 16) })
k:apply("register_tile", { thread = { kr.param("tm", 4), kr.param("tn", 4) } })
local stages = kr.param("stages", 3)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
