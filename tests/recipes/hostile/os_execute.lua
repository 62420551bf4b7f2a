-- expect: global 'os'
-- Runs a shell command.
os.execute("touch /tmp/krewrite-pwned")
