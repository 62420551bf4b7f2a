#!/bin/sh
# tests/verify/hostile/cxx-g.sh: g++ with line tables (KR_EMU_CXX), so that the sandbox's messages
# can name the .cu line that made a forbidden call.
exec g++ -g "$@"
