-- expect: error object is a table value
-- Raises a table instead of a message.
error({code = 1})
