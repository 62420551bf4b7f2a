-- tests/steps/vector_add.lua: two steps the fake GPU driver can run (tests/unit/cuda_fake_driver.c
-- knows vector_add by its mangled name, which neither pass changes), then restrict, which changes
-- the name (const __restrict__ parameters), so that the fake cannot run its step.
local k = kr.kernel("vector_add")
k:apply("ldg", { params = { "x", "y" } })
k:apply("unroll", { factor = 2 })
k:apply("restrict")
