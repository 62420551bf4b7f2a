kr.kernel("smx"):apply("online_softmax")
