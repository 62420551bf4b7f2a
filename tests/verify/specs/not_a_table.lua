-- expect: must return a table
-- A spec that returns a number.
return 5
