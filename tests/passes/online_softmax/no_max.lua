kr.kernel("sumexp"):apply("online_softmax")
