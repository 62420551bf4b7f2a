-- examples/rmsnorm_bf16/recipe_reduce.lua: one block (or warp) per row of 4096 bf16 values,
-- shuffles instead of a barrier per tree level.
local k = kr.kernel("rmsnorm_bf16")
if kr.param("warp", false) then
  k:apply("warp_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
else
  k:apply("block_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
end
-- row_cache (-D steps=S -D shared=KIB, block_reduce only): the sum of squares' 16-byte steps of x kept
-- on chip for the scaling sweep, so x is read once.
local steps, shared = kr.param("steps", 0), kr.param("shared", 0)
if steps > 0 or shared > 0 then k:apply("row_cache", { steps = steps, shared = shared }) end
