kr.kernel("copy_until"):apply("vectorize")
