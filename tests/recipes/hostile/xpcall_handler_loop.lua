-- expect: instruction limit of
-- The error handler loops too: Lua runs handlers with hooks off, so this would never end.
xpcall(function()
  while true do end
end, function()
  while true do end
end)
