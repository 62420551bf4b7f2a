-- expect: global 'dofile'
-- Runs another file.
dofile("/etc/passwd")
