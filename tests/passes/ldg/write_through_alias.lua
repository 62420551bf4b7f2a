local k = kr.kernel("tail")
k:apply("ldg", { params = {"x"} })
