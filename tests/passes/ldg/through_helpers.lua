local k = kr.kernel("scale_rows")
k:apply("ldg", { params = {"x", "bias"} })
