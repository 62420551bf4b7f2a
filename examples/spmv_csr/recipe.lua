-- examples/spmv_csr/recipe.lua: restrict (every input const) and all four read-only arrays
-- through the read-only cache; the gathers of x benefit most.
local k = kr.kernel("spmv_csr")
k:apply("restrict")
k:apply("ldg", { params = { "rowptr", "colind", "values", "x" } })
