-- expect: unknown pass 'vectorise' (did you mean 'vectorize'?)
-- A misspelt pass name gets the nearest one.
kr.kernel("vector_add"):apply("vectorise")
