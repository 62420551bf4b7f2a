-- examples/matmul_bf16/recipe.lua: the bf16 contraction on the tensor cores. A block computes a
-- BM x BN tile of C from k tiles of BK staged in shared memory (16-byte cp.async, STAGES deep); each
-- warp computes WM x WN of it with bf16 mma.sync m16n8k16 fed by ldmatrix (api = "wmma": the WMMA API's
-- 16 x 16 x 16 fragments). The operands are bf16 already,
-- so nothing is lowered: the products are exact and each k step's sum is added to the total in
-- fp32 (the sum reassociated).
--   krewrite bench examples/matmul_bf16/problem.lua --recipe examples/matmul_bf16/recipe.lua -D bm=256
-- (the defaults are the fastest measured, bench/results/tensor-2026-12-02b.json)
local k = kr.kernel("matmul_bf16")
k:apply("tile", { block = { kr.param("bm", 128), kr.param("bn", 128) }, k = kr.param("bk", 64) })
local api = kr.param("api", "mma")
if api == "wgmma" then   -- Hopper's warpgroup products set their own warp tile (k tiles of 64: -D bk=64)
  k:apply("tensor_core", { precision = "bf16", api = api })
else
  k:apply("tensor_core", { precision = "bf16", api = api, warp = { kr.param("wm", 64), kr.param("wn", 64) } })
end
local stages = kr.param("stages", 3)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
