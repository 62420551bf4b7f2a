-- expect: parameter 'width' of vectorize must be an integer, got the string "4"
-- A string for an integer parameter says it was a string.
kr.kernel("vector_add"):apply("vectorize", { width = "4" })
