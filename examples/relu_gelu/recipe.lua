-- examples/relu_gelu/recipe.lua: both elementwise kernels get restrict (x read-only, so const),
-- float4 loads and stores (each thread handles 4 elements, so the pass reports a launch with a
-- quarter of the blocks), then the loads of x through the read-only cache. vectorize comes
-- before ldg because it rewrites plain x[i] accesses, not __ldg(&x[i]). (No fast-math recipe:
-- the only transcendental here is tanhf, which has no fast C++ intrinsic.)
for _, name in ipairs({ "gelu", "relu" }) do
  local k = kr.kernel(name)
  k:apply("restrict")
  k:apply("vectorize", { width = 4 })
  k:apply("ldg", { params = { "x" } })
end
