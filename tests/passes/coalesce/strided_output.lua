kr.kernel("scale_into_even_cols"):apply("coalesce")
