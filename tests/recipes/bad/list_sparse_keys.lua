-- expect: parameter 'params' of restrict must be a list ({"a", "b"}), got a table with the key [3] after 0 entries
-- A list with a hole.
kr.kernel("vector_add"):apply("restrict", { params = { [3] = "x" } })
