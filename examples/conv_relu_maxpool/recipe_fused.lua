-- examples/conv_relu_maxpool/recipe_fused.lua: the ReLU fused into the convolution's epilogue (its
-- launch dropped), the convolution as an implicit GEMM (as examples/conv2d/recipe_igemm.lua, whose
-- fastest H200 tiles are the defaults here), and the max-pool with its window unrolled. The precision
-- is a parameter: fp32 (default, the SIMT schedule, exact), or tf32, fp16, bf16, 3xtf32 on the tensor
-- cores (tf32, fp16 and bf16 lower the operands), by mma.sync or, with -D api=wgmma, Hopper's wgmma.
-- With -D pool=true the max-pool is fused too, the whole program one kernel: each conv output folded into
-- the pooled outputs whose windows hold it by an atomic maximum (y filled with all-ones bytes before the
-- launch); under wgmma the pool is walked from the epilogue's output tile instead, t left unstored (-D
-- store=true keeps it) and the bias and ReLU applied to each window's maximum. On the H200 in tf32 that
-- runs 0.273 ms against 0.258 with the pool as its own kernel (docs/passes.md, fuse); with -D persistent=true
-- -D order=descending -D stages=3 and the pool as its own kernel, 0.244 (docs/passes.md, persistent).
--   krewrite verify examples/conv_relu_maxpool/problem.lua --recipe examples/conv_relu_maxpool/recipe_fused.lua
local precision = kr.param("precision", "fp32")
local pooled = kr.param("pool", false)
local tc = precision ~= "fp32"
local conv = kr.kernel("conv2d")
conv:apply("fuse", { consumer = "relu_inplace" })
-- t is the program's temporary, read by the pool alone: store = false lets the pooled epilogue leave it unstored
if pooled then conv:apply("fuse", { consumer = "maxpool2d", store = kr.param("store", false) }) end
conv:apply("implicit_gemm", { block = { kr.param("bm", 128), kr.param("bn", 96) }, k = kr.param("bk", tc and 32 or 16),
                              thread = { kr.param("tm", 8), kr.param("tn", 6) }, patch = kr.param("patch", true) })
if tc then
  kr.allow_lowering()
  local api = kr.param("api", "mma")
  if api == "wgmma" then   -- Hopper's warpgroup products: their own warp tile, k rows of 128 bytes
    conv:apply("tensor_core", { precision = precision, api = api,
                                k = (precision == "fp16" or precision == "bf16") and 64 or 32 })
  else
    conv:apply("tensor_core", { precision = precision, api = api, warp = { kr.param("wm", 32), kr.param("wn", 32) } })
  end
end
local stages = kr.param("stages", tc and precision ~= "fp16" and precision ~= "bf16" and 3 or (tc and 1 or 2))
if stages > 1 then conv:apply("double_buffer", { stages = stages }) end
-- -D persistent=true: a block an SM walks the m tiles, its setup paid once (docs/passes.md, persistent)
if kr.param("persistent", false) then conv:apply("persistent", { order = kr.param("order", "ascending") }) end
-- On the tensor cores, the pointers const __restrict__ where nothing aliases them (the audit log
-- records that it is so): the compiler then loads the epilogue's bias ahead of its stores, 2% faster
-- on the H200; the SIMT schedule ran 5% slower so (bench/results/conv-restrict-2026-12-03.json)
if kr.param("restrict", tc) then conv:apply("restrict") end

if not pooled then
  local pool = kr.kernel("maxpool2d")
  pool:apply("restrict")
  pool:apply("ldg", { params = { "t" } })
  pool:try("index_precompute")
  pool:apply("unroll", { var = "j" })
  pool:apply("unroll", { var = "i" })
end
