kr.kernel("sq"):apply("tensor_core")
