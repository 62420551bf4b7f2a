-- expect: kr.kernel: the kernel name "vector_add\0..." contains a NUL byte at position 11
-- A kernel name with a NUL would name another kernel to C.
kr.kernel("vector_add\0evil")
