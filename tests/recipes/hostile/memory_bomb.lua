-- expect: memory limit of
-- Grows a table until memory runs out.
local t = {}
local i = 0
while true do
  i = i + 1
  t[i] = {i, i, i}
end
