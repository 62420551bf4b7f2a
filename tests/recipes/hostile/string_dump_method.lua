-- expect: method 'dump'
-- Reaches string.dump through the string metatable.
return ("x"):dump()
