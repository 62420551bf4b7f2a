local k = kr.kernel("add3")
k:apply("restrict", { params = {"b", "c"} })
