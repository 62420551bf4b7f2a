-- examples/matmul_tallk/recipe_tiled.lua: the contraction schedule of examples/matmul (128 x 128
-- block tiles, k tiles of 16 staged in padded shared memory, 8 x 8 outputs per thread, two cp.async
-- stages) plus split_k: the 16 output tiles of a 512 x 512 C are too few blocks for 132 SMs, so
-- each tile's k range is split over PARTS blocks (256 blocks with 16 parts, about two per SM),
-- their partial sums combined exactly, in the fixed order of the parts, by the last block of the
-- tile to arrive. Every size is a -D parameter for sweeps:
--   krewrite bench examples/matmul_tallk/problem.lua --recipe examples/matmul_tallk/recipe_tiled.lua -D parts=8
local k = kr.kernel("matmul_tallk")
k:apply("tile", { block = { kr.param("bm", 128), kr.param("bn", 128) }, k = kr.param("bk", 16),
                  pad = kr.param("pad", true) })
k:apply("register_tile", { thread = { kr.param("tm", 8), kr.param("tn", 8) } })
local stages = kr.param("stages", 2)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
k:apply("split_k", { parts = kr.param("parts", 16) })
