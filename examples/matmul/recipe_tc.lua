-- examples/matmul/recipe_tc.lua: the contraction schedule on the tensor cores. A block computes a
-- BM x BN tile of C from k tiles of BK staged in shared memory (cp.async, STAGES deep); each warp
-- computes a WM x WN part of it with PTX mma.sync fed by ldmatrix (api = "wmma": the WMMA API, slower
-- on the H200). The defaults are the fastest measured (bench/results/tensor-2026-12-02b.json). The
-- precision is a parameter:
--   3xtf32 (default)  each fp32 operand split into a tf32 value and a tf32 residual, three products:
--                     fp32-grade accuracy (its error against float64 is in bench/results), declared as
--                     lowering (tolerance 5e-6): at 4096^3 no reordered fp32 sum holds matmul's 1e-6
--                     against the naive kernel, whose own error is 1.15e-6 there
--   tf32              operands rounded to tf32 (lowers precision: tolerance 1e-3)
--   krewrite bench examples/matmul/problem.lua --recipe examples/matmul/recipe_tc.lua -D precision=tf32
local precision = kr.param("precision", "3xtf32")
kr.allow_lowering()
local k = kr.kernel("matmul")
k:apply("tile", { block = { kr.param("bm", 128), kr.param("bn", 256) }, k = kr.param("bk", 32) })
local api = kr.param("api", "mma")
if api == "wgmma" then   -- the warpgroups' shape is wgmma's own: 64 rows of the product each
  k:apply("tensor_core", { precision = precision, api = api })
else
  k:apply("tensor_core", { precision = precision, warp = { kr.param("wm", 64), kr.param("wn", 64) }, api = api })
end
local stages = kr.param("stages", 3)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
