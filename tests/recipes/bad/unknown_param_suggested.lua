-- expect: pass 'vectorize' has no parameter 'widht' (did you mean 'width'?)
-- A misspelt parameter name gets the nearest one, under k:try as well.
kr.kernel("vector_add"):try("vectorize", { widht = 2 })
