-- examples/rmsnorm_bf16/recipe_reduce.lua: one block of 128 threads (or with -D warp=true a warp)
-- per row of 4096 bf16 values, shuffles instead of a barrier per tree level, 16-byte steps (8
-- values a load); the block's row kept in registers between its two sweeps (row_cache, 4 steps a
-- thread: the whole row), so x is read once. The H200: 0.071 ms, 89% of the bytes floor
-- (bench/results/reduce-2026-12-02b.json).
local k = kr.kernel("rmsnorm_bf16")
if kr.param("warp", false) then
  k:apply("warp_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
else
  k:apply("block_reduce", { threads = kr.param("threads", 128), vector = kr.param("vector", true),
                            stream = kr.param("stream", false) })
end
-- row_cache (-D steps=S -D shared=KIB, block_reduce only): the sum of squares' 16-byte steps of x kept
-- on chip for the scaling sweep, so x is read once.
local steps, shared = kr.param("steps", kr.param("warp", false) and 0 or 4), kr.param("shared", 0)
if steps > 0 or shared > 0 then k:apply("row_cache", { steps = steps, shared = shared }) end
