local k = kr.kernel("wait_then_copy")
k:apply("ldg", { params = {"flag", "x"} })
