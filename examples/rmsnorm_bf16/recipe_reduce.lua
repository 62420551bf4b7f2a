-- examples/rmsnorm_bf16/recipe_reduce.lua: one block (or warp) per row of 4096 bf16 values,
-- shuffles instead of a barrier per tree level.
local k = kr.kernel("rmsnorm_bf16")
if kr.param("warp", false) then
  k:apply("warp_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
else
  k:apply("block_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
end
