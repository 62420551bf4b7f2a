-- expect: global 'collectgarbage'
-- Stops the collector so memory grows faster.
collectgarbage("stop")
