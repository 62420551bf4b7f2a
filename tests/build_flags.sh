#!/usr/bin/env bash
# tests/build_flags.sh KREWRITE: the source's build flags on tests/fixtures/build_flags,
# a kernel in src/ that needs a header beside it, one from the spec's include folder (common/) and
# the spec's defines (BIAS, MODE; MODE's branches split the kernel's opening brace).
#  1. A recipe in another folder (its path holds a '/'): the candidate finds the source's headers.
#  2. A hand-written candidate in a folder of its own finds them too, and hard-codes MODE 2: it
#     passes with the spec's defines and fails under --define MODE=1, so the emulator sees them.
#  3. An optimize search: its candidates (DIR/cand-N.lua) build and verify.
#  4. compile with -I and --define builds with nvcc; without them nvcc names the missing header.
#  5. A spec include folder that does not exist is refused with its field.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
f=tests/fixtures/build_flags
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "build_flags: $*" >&2; exit 1; }
"$kr" verify $f/problem.lua --recipe $f/recipes/restrict.lua >"$tmp/1" 2>&1 && grep -q ' 0 failed' "$tmp/1" ||
  { cat "$tmp/1"; fail "a recipe from another folder did not verify"; }
"$kr" verify $f/problem.lua --candidate $f/cand/mode2_only.cu >"$tmp/2" 2>&1 && grep -q ' 0 failed' "$tmp/2" ||
  { cat "$tmp/2"; fail "the candidate in its own folder did not verify with the spec's defines"; }
"$kr" verify $f/problem.lua --candidate $f/cand/mode2_only.cu --define MODE=1 >"$tmp/3" 2>&1
[ $? = 1 ] && grep -q '^0 passed' "$tmp/3" || { cat "$tmp/3"; fail "--define MODE=1 did not reach the emulator"; }
"$kr" optimize $f/problem.lua --rounds 1 --branch 1 --jobs 1 --out "$tmp/opt" >"$tmp/4" 2>&1 ||
  { cat "$tmp/4"; fail "optimize failed"; }
python3 - "$tmp/opt/run.json" <<'PY' || fail "optimize's candidates did not build"
import json, sys
run = json.load(open(sys.argv[1]))
cands = [c for r in run["rounds"] for c in r["candidates"]]
assert cands, run["stop_reason"]
assert not any(c["status"] == "build failed" for c in cands), [(c["id"], c["status"], c.get("error")) for c in cands]
assert any(c["status"] == "verified" for c in cands), [(c["id"], c["status"]) for c in cands]
PY
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=$PATH:/usr/local/cuda/bin
  "$kr" compile $f/src/kernel.cu -I $f/common --define BIAS=1 --no-cache >"$tmp/5" 2>&1 ||
    { cat "$tmp/5"; fail "compile with -I and --define failed"; }
  "$kr" compile $f/src/kernel.cu --no-cache >"$tmp/6" 2>&1
  [ $? = 1 ] && grep -q 'affine.h' "$tmp/6" || { cat "$tmp/6"; fail "compile without -I did not name the header"; }
fi
"$kr" verify $f/bad_include.lua --candidate $f/src/kernel.cu >"$tmp/7" 2>&1
[ $? = 1 ] && grep -qF "bad_include.lua: error: include[2]: the include folder" "$tmp/7" ||
  { cat "$tmp/7"; fail "a missing include folder was not refused"; }
exit 0
