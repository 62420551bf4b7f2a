-- expect: a parameter name "width\0..." contains a NUL byte
-- A parameter name with a NUL would set another parameter.
kr.kernel("vector_add"):apply("vectorize", { ["width\0x"] = 2 })
