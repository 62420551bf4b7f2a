kr.kernel("copy_segments"):apply("vectorize")
