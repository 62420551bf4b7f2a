-- examples/reduce_sum/recipe.lua: restrict and read-only loads on both launches' inputs (x in
-- reduce_partial, partial in reduce_final: written by the first launch, read-only in the
-- second). The order of the additions is unchanged.
local p = kr.kernel("reduce_partial")
p:apply("restrict")
p:apply("ldg", { params = { "x" } })
local f = kr.kernel("reduce_final")
f:apply("restrict")
f:apply("ldg", { params = { "partial" } })
