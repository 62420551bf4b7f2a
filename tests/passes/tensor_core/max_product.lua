kr.kernel("maxprod"):apply("tensor_core")
