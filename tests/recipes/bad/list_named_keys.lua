-- expect: parameter 'params' of ldg must be a list ({"a", "b"}), got a table with the key 'x'
-- A list parameter given a table with names would lose them and mean "every pointer".
kr.kernel("vector_add"):apply("ldg", { params = { x = 1 } })
