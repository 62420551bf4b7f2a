local k = kr.kernel("even")
k:apply("vectorize", { params = {"x", "y"} })
