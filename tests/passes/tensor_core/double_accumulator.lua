kr.kernel("sgemm_dacc"):apply("tensor_core")
