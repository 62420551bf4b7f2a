-- expect: stack overflow
-- Recurses without end.
local function down(n)
  return 1 + down(n + 1)
end
return down(1)
