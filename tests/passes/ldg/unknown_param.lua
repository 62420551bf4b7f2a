local k = kr.kernel("fill")
k:apply("ldg", { params = {"v"} })
