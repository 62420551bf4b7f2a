local k = kr.kernel("diff")
k:apply("vectorize", { params = {"x"} })
