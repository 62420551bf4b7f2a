-- examples/rowmax_argmax/recipe_reduce.lua: a row's maximum and the first index of it, one warp
-- (or block) per row; the (value, index) pairs combined with ties to the smaller index.
local k = kr.kernel("rowmax_argmax")
if kr.param("block", false) then
  k:apply("block_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
else
  k:apply("warp_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
end
