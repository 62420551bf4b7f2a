-- expect: syntax_error.lua:4: error: unexpected symbol near <eof>
-- A Lua syntax error, reported with its line.
return { name = 
