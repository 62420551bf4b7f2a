-- tests/planted/recipes/two_scales_vectorize.lua: float4 accesses in scale only; its grid shrinks
-- by 4, and scale2's launch must keep its own grid.
kr.kernel("scale"):apply("vectorize", { width = 4 })
