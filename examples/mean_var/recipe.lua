-- examples/mean_var/recipe.lua: exact rewrites only: restrict (x const) and x through the
-- read-only cache (each thread reads its row twice).
local k = kr.kernel("mean_var")
k:apply("restrict")
k:apply("ldg", { params = { "x" } })
