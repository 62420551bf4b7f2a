-- expect: parameter 'width' of vectorize must be an integer, got 2.5
-- A float for an integer parameter says what it got.
kr.kernel("vector_add"):try("vectorize", { width = 2.5 })
