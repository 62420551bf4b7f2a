kr.kernel("rowprefix"):apply("accumulate")
