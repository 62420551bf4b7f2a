-- examples/softmax_rowthread/recipe.lua: exact rewrites only: restrict (x const) and x through
-- the read-only cache (each thread reads its row three times).
local k = kr.kernel("softmax_rowthread")
k:apply("restrict")
k:apply("ldg", { params = { "x" } })
