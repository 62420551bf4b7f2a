-- examples/matmul_bf16/recipe.lua: the bf16 contraction on the tensor cores. A block computes a
-- BM x BN tile of C from k tiles of BK staged in shared memory (16-byte cp.async, STAGES deep). With
-- api = "wgmma" (default; Hopper, sm_90a) each warpgroup of the block computes 64 of its BN columns
-- by BM rows with wgmma.mma_async m64nNk16: A, read along k, from its 128-byte-swizzled shared tile
-- (so BK is 64: rows of 128 bytes), B by ldmatrix into registers. With api = "mma" each warp computes
-- WM x WN of it with mma.sync m16n8k16 fed by ldmatrix; "wmma" with the WMMA API's 16 x 16 x 16
-- fragments. The operands are bf16 already, so nothing is lowered: the products are exact and the
-- sums are fp32 (reassociated).
--   krewrite bench examples/matmul_bf16/problem.lua --recipe examples/matmul_bf16/recipe.lua
-- The defaults are the fastest measured: 0.248 ms at 4096^3, 77.8% of cuBLAS bf16
-- (bench/results/tensor-2026-12-03c.json); api mma's best was 0.524 ms at 128 x 128 x 64, 64 x 64
-- warps, 3 stages (-D api=mma -D bm=128 -D stages=3, tensor-2026-12-02b.json).
local api = kr.param("api", "wgmma")
local k = kr.kernel("matmul_bf16")
k:apply("tile", { block = { kr.param("bm", 256), kr.param("bn", 128) }, k = kr.param("bk", 64) })
if api == "wgmma" then   -- Hopper's warpgroup products set their own warp tile
  k:apply("tensor_core", { precision = "bf16", api = api })
else
  k:apply("tensor_core", { precision = "bf16", api = api, warp = { kr.param("wm", 64), kr.param("wn", 64) } })
end
local stages = kr.param("stages", 4)
if stages > 1 then k:apply("double_buffer", { stages = stages }) end
