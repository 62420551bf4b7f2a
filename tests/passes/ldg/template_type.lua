local k = kr.kernel("copy")
k:apply("ldg", { params = {"in"} })
