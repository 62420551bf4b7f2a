-- examples/conv2d/recipe_igemm.lua: the convolution as an implicit GEMM (m = the output positions
-- n, p, q; n = the output channels k; k = the window c, r, s), its tiles gathered into shared memory.
-- The precision is a parameter:
--   fp32 (default)  the SIMT schedule: TM x TN outputs per thread in registers (exact)
--   3xtf32          tensor cores, each fp32 operand split into a tf32 value and residual (fp32-grade)
--   tf32, fp16, bf16  tensor cores on lowered operands (tolerance 1e-3, 1e-3, 1e-2)
--   krewrite verify examples/conv2d/problem.lua --recipe examples/conv2d/recipe_igemm.lua -D precision=tf32
local precision = kr.param("precision", "fp32")
local k = kr.kernel("conv2d")
k:apply("implicit_gemm", { block = { kr.param("bm", 128), kr.param("bn", 32) }, k = kr.param("bk", 32),
                           thread = { kr.param("tm", 4), kr.param("tn", 4) },
                           table = kr.param("table", true), patch = kr.param("patch", true) })
if precision ~= "fp32" then
  kr.allow_lowering()
  local api = kr.param("api", "mma")
  if api == "wgmma" then   -- wgmma's warp tile is its own (the weights, read along k, from shared memory),
    -- and its k tile a row of 128 bytes: 64 elements in fp16 and bf16, 32 in tf32 and 3xtf32
    k:apply("tensor_core", { precision = precision, api = api,
                             k = (precision == "fp16" or precision == "bf16") and 64 or 32 })
  else
    k:apply("tensor_core", { precision = precision, api = api, warp = { kr.param("wm", 32), kr.param("wn", 32) } })
  end
end
local stages = kr.param("stages", 1)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
-- -D persistent=true: a block an SM walks the m tiles, its setup paid once (docs/passes.md, persistent)
if kr.param("persistent", false) then k:apply("persistent", { order = kr.param("order", "ascending") }) end
-- On the tensor cores, the pointers const __restrict__ where nothing aliases them (the audit log
-- records that it is so): the compiler then loads the epilogue's bias ahead of its stores, 2% faster
-- on the H200; the SIMT schedule ran 5% slower so (bench/results/conv-restrict-2026-12-03.json)
if kr.param("restrict", precision ~= "fp32") then k:apply("restrict") end
