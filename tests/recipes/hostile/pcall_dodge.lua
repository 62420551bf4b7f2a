-- expect: instruction limit of
-- Catches the limit error with pcall and goes on spinning.
while true do
  pcall(function()
    while true do end
  end)
end
