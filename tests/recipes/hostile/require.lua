-- expect: global 'require'
-- Loads a C module (io, os, a shared library).
local io = require("io")
return io.open("/etc/passwd")
