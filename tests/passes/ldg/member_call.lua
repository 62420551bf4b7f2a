kr.kernel("warp_sum"):apply("ldg", { params = {"x"} })
