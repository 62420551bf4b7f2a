-- expect: global 'io'
-- Reads a file it has no business reading.
local f = io.open("/etc/passwd")
return f:read("a")
