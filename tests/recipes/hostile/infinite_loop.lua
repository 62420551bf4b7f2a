-- expect: instruction limit of
-- Spins for ever; only the instruction count can stop it.
local n = 0
while true do
  n = n + 1
end
