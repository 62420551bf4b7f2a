local k = kr.kernel("copy")
k:apply("vectorize", { params = {"x", "z"} })
