local k = kr.kernel("dot")
k:apply("unroll", { factor = kr.param("factor", 2) })
