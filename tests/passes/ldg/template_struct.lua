kr.kernel("copy"):apply("ldg", { params = {"in"} })
