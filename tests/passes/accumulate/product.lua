kr.kernel("rowprod"):apply("accumulate")
