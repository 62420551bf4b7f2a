local k = kr.kernel("conv1d")
k:apply("ldg", { params = {"w", "idx", "bias"} })
