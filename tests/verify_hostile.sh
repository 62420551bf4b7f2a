#!/usr/bin/env bash
# tests/verify_hostile.sh KREWRITE CASE.cu: a hostile candidate for examples/vector_add
# (tests/verify/hostile/) must fail verification with its "// expect:" text, krewrite must live
# on to print its summary, and nothing may be left behind: the file KR_HOSTILE_MARK names is
# never created, the file KR_HOSTILE_VICTIM names still exists, and the temporary folder
# (TMPDIR, where the sandbox's private folders go) is empty again. Then the correct kernel must
# still verify in the same setting.
set -uo pipefail
kr=$1
cu=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
expect=$(sed -n 's|^// expect: ||p' "$cu" | head -n 1)
[ -n "$expect" ] || { echo "hostile $cu: no '// expect:' line" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tmp"
export KR_HOSTILE_MARK=$tmp/pwned KR_HOSTILE_VICTIM=$tmp/victim
touch "$KR_HOSTILE_VICTIM"
cd "$root" || exit 1
TMPDIR=$tmp/tmp KR_EMU_CXX=$root/tests/verify/hostile/cxx-g.sh timeout 300 "$kr" verify \
  examples/vector_add/problem.lua --candidate "$cu" --seeds 1 >"$tmp/out" 2>&1
rc=$?
fail() { cat "$tmp/out" >&2; echo "hostile $(basename "$cu"): $*" >&2; exit 1; }
[ $rc = 1 ] || fail "expected exit 1, got $rc"
grep -qF -- "$expect" "$tmp/out" || fail "the output lacks '$expect'"
[ -e "$KR_HOSTILE_MARK" ] && fail "the candidate created $KR_HOSTILE_MARK"
[ -e "$KR_HOSTILE_VICTIM" ] || fail "the candidate removed $KR_HOSTILE_VICTIM"
left=$(ls -A "$tmp/tmp")
[ -z "$left" ] && [ ! -e big.bin ] || fail "left behind: $left"
TMPDIR=$tmp/tmp KR_EMU_CXX=$root/tests/verify/hostile/cxx-g.sh timeout 300 "$kr" verify \
  examples/vector_add/problem.lua --candidate examples/vector_add/kernel.cu --seeds 1 >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] || fail "afterwards the correct kernel did not verify (exit $rc)"
exit 0
