-- expect: memory limit of
-- Catches the out-of-memory error and carries on as if nothing happened.
for i = 1, 100 do
  pcall(function()
    local t = {}
    while true do t[#t + 1] = i end
  end)
end
return "survived"
