-- expect: table.move: moving more than
-- Copies absent elements: allocates nothing, so only the loop bound can stop it.
table.move({}, 1, math.maxinteger, 1)
