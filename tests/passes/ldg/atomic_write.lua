local k = kr.kernel("histogram")
k:apply("ldg", { params = {"data", "hist"} })
