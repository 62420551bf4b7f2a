-- examples/transpose/recipe.lua: restrict (in const) and in through the read-only cache. The
-- real win for a transpose (staging a tile in shared memory so that the writes coalesce) needs
-- a tiling pass that does not exist yet.
local k = kr.kernel("transpose")
k:apply("restrict")
k:apply("ldg", { params = { "in" } })
