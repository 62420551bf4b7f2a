local k = kr.kernel("saxpy")
k:apply("ldg", { params = {"x", "y"} })
