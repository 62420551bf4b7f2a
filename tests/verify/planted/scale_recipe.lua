-- tests/verify/planted/scale_recipe.lua: float4 accesses in `scale` only; the pass reports a
-- launch with a quarter of the blocks, which must reach `scale`'s launch and not `scale2`'s.
kr.kernel("scale"):apply("vectorize", { width = 4 })
