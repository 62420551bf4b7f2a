-- examples/softmax/recipe.lua: exact rewrites only: restrict (x const) and x through the
-- read-only cache (the row is read three times, so the cache matters). See recipe_fast.lua for
-- the fast-math variant.
local k = kr.kernel("softmax")
k:apply("restrict")
k:apply("ldg", { params = { "x" } })
