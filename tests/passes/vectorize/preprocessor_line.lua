kr.kernel("bias_act"):apply("vectorize")
