local k = kr.kernel("stencil")
k:apply("ldg")
