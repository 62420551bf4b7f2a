-- examples/matvec/recipe_reduce.lua: one thread per row of A becomes one warp per row
-- (warp_reduce), so neighbouring lanes read neighbouring elements of the row.
local k = kr.kernel("matvec")
if kr.param("block", false) then
  k:apply("block_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
else
  k:apply("warp_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
end
