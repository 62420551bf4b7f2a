kr.kernel("scale"):apply("ldg", { params = {"in"} })
