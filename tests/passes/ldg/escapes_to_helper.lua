local k = kr.kernel("k")
k:apply("ldg", { params = {"x"} })
