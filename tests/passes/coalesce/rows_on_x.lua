kr.kernel("mm_rows_x"):apply("coalesce")
