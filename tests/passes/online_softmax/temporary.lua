kr.kernel("softmax_denom"):apply("online_softmax")
