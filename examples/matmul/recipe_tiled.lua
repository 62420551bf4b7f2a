-- examples/matmul/recipe_tiled.lua: the contraction schedule, strict fp32. A block computes a
-- BM x BN tile of C with the k loop in tiles of BK staged in padded shared memory; each thread
-- computes TM x TN outputs as an outer product in registers; with stages >= 2 the next k tiles
-- are loaded with cp.async while this one is multiplied. The sum over k keeps its order, so the
-- result is bit-identical to the naive kernel's. Every size is a -D parameter for sweeps:
--   krewrite bench examples/matmul/problem.lua --recipe examples/matmul/recipe_tiled.lua -D bm=64
local k = kr.kernel("matmul")
k:apply("tile", { block = { kr.param("bm", 128), kr.param("bn", 128) }, k = kr.param("bk", 16),
                  pad = kr.param("pad", true) })
k:apply("register_tile", { thread = { kr.param("tm", 8), kr.param("tn", 8) } })
local stages = kr.param("stages", 2)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
-- -D persistent=true: a block an SM walks the m tiles (docs/passes.md, persistent)
if kr.param("persistent", false) then k:apply("persistent", { order = kr.param("order", "ascending") }) end
