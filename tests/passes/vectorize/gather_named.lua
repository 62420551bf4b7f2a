local k = kr.kernel("gather")
k:apply("vectorize", { params = {"x"} })
