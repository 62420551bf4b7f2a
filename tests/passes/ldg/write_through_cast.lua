local k = kr.kernel("bump")
k:apply("ldg", { params = "x" })
