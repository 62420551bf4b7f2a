kr.kernel("vecmat"):apply("accumulate")
