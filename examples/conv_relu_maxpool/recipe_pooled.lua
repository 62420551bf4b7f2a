-- examples/conv_relu_maxpool/recipe_pooled.lua: the whole program in one kernel: the ReLU and the 3 x 3
-- max-pool fused into the convolution (both consumers' launches dropped), the convolution as an implicit
-- GEMM as in recipe_fused.lua. Each conv output, once computed, is folded into the pooled outputs whose
-- windows hold it by an atomic maximum (y filled with all-ones bytes before the launch); under wgmma the
-- pool is walked from the epilogue's output tile instead (t is still stored). On the H200 in tf32 it runs
-- 0.325 ms against 0.290 for recipe_fused (docs/passes.md, fuse). Precision and tiles as recipe_fused.lua:
--   krewrite verify examples/conv_relu_maxpool/problem.lua --recipe examples/conv_relu_maxpool/recipe_pooled.lua
local precision = kr.param("precision", "fp32")
local tc = precision ~= "fp32"
local conv = kr.kernel("conv2d")
conv:apply("fuse", { consumer = "relu_inplace" })
conv:apply("fuse", { consumer = "maxpool2d" })
conv:apply("implicit_gemm", { block = { kr.param("bm", 128), kr.param("bn", 96) }, k = kr.param("bk", tc and 32 or 16),
                              thread = { kr.param("tm", 8), kr.param("tn", 6) }, patch = kr.param("patch", true) })
if tc then
  kr.allow_lowering()
  local api = kr.param("api", "mma")
  if api == "wgmma" then
    conv:apply("tensor_core", { precision = precision, api = api,
                                k = (precision == "fp16" or precision == "bf16") and 64 or 32 })
  else
    conv:apply("tensor_core", { precision = precision, api = api, warp = { kr.param("wm", 32), kr.param("wn", 32) } })
  end
end
local stages = kr.param("stages", tc and precision ~= "fp16" and precision ~= "bf16" and 3 or (tc and 1 or 2))
if stages > 1 then conv:apply("double_buffer", { stages = stages }) end
if kr.param("restrict", tc) then conv:apply("restrict") end
