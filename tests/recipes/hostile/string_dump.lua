-- expect: field 'dump'
-- Dumps a function to bytecode, the first step to loading crafted bytecode.
return string.dump(function() end)
