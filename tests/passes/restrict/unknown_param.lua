local k = kr.kernel("fill")
k:apply("restrict", { params = {"y", "z"} })
