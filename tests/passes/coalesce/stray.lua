kr.kernel("k"):apply("coalesce")
