local k = kr.kernel("dscale")
k:apply("vectorize", { params = {"x", "y"} })
