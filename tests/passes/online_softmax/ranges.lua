kr.kernel("ranges"):apply("online_softmax")
