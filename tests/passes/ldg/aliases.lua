-- aliases resolve to the types they stand for
kr.kernel("mix"):apply("ldg")
