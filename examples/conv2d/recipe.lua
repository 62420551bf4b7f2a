-- examples/conv2d/recipe.lua: rounds 1 and 5 of the SEEDS.md conv2d trajectory on the direct
-- kernel: read-only loads for the invariant tensors (x, w, b) and index precomputation (the
-- parts of the x and w offsets that do not change in the inner loops are hoisted out of them).
local k = kr.kernel("conv2d")
k:apply("restrict")
k:apply("ldg", { params = { "x", "w", "b" } })
k:apply("index_precompute")
