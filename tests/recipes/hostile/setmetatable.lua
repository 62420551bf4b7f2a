-- expect: global 'setmetatable'
-- Metatables would allow __gc finalizers and other code the host does not expect to run.
setmetatable({}, {__gc = function() while true do end end})
