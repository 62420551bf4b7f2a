local k = kr.kernel("gather")
k:apply("ldg")
