kr.kernel("mixed"):apply("online_softmax")
