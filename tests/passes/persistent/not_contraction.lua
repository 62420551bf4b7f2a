-- persistent on a kernel with no reduction (a transpose): refused.
kr.kernel("transpose"):apply("persistent")
