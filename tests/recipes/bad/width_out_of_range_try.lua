-- expect: parameter 'width' of vectorize must be one of 2|4, got 3
-- A bad parameter is the recipe's bug: k:try raises it, it does not answer false.
local ok = kr.kernel("vector_add"):try("vectorize", { width = 3 })
error("k:try returned " .. tostring(ok) .. " instead of raising")
