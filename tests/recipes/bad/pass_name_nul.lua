-- expect: the pass name "restrict\0..." contains a NUL byte
-- A pass name with a NUL would run another pass.
kr.kernel("vector_add"):apply("restrict\0x")
