local k = kr.kernel("centre")
k:apply("vectorize", { params = {"y"} })
