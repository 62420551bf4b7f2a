-- examples/stencil2d/recipe.lua: restrict (in const) and the five loads of in through the
-- read-only cache (neighbouring threads share most of them).
local k = kr.kernel("stencil2d")
k:apply("restrict")
k:apply("ldg", { params = { "in" } })
