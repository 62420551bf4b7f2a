#!/usr/bin/env bash
# tests/missing_header.sh KREWRITE: a header that is nowhere, on tests/fixtures/missing_header:
# a.cu includes "sub/b.cuh", whose line 4 includes "c.cuh", which no folder holds; deep.cu gets there
# through one more header. Every build names the header, the chain of includes, the folders searched
# in order and the -I hint, and fails with exit 1:
#  1. the emulator's build (verify, real g++), from a.cu and from deep.cu (gcc's "from" lines);
#  2. nvcc's build (compile), when nvcc is installed;
#  3. the front end does not need the header: kernels lists a.cu's kernel.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
f=tests/fixtures/missing_header
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "missing_header: $*" >&2; exit 1; }
# expect FILE TEXT...: every TEXT is a whole line of FILE.
expect() {
  local out=$1
  shift
  for line in "$@"; do grep -qxF -- "$line" "$out" || { cat "$out"; fail "no line: $line"; }; done
}
error="$f/sub/b.cuh:4:10: error: header \"c.cuh\" not found"
hint="krewrite: note: if the header is elsewhere, add -I DIR, with DIR/c.cuh its path (or DIR to the problem spec's include = { ... })"
searched="krewrite: note: searched for \"c.cuh\", in order: $f/sub (beside b.cuh), $f (the source's folder)"

"$kr" verify $f/problem.lua --candidate $f/a.cu >"$tmp/1" 2>&1
[ $? = 1 ] || { cat "$tmp/1"; fail "verify did not fail with exit 1"; }
expect "$tmp/1" "$error" "$f/a.cu:6: note: includes \"sub/b.cuh\"" \
  "$f/sub/b.cuh:4: note: includes \"c.cuh\", which is not found" \
  "$searched, the emulator's stand-in CUDA headers, $f/inc (-I), then the C++ compiler's system folders" "$hint"

"$kr" verify $f/deep.lua --candidate $f/deep.cu >"$tmp/2" 2>&1
[ $? = 1 ] || { cat "$tmp/2"; fail "verify of deep.cu did not fail with exit 1"; }
expect "$tmp/2" "$error" "$f/deep.cu:4: note: includes \"sub/chain.cuh\"" "$f/sub/chain.cuh:4: note: includes \"b.cuh\"" \
  "$f/sub/b.cuh:4: note: includes \"c.cuh\", which is not found" \
  "$searched, the emulator's stand-in CUDA headers, then the C++ compiler's system folders" "$hint"

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=$PATH:/usr/local/cuda/bin
  "$kr" compile $f/a.cu -I $f/inc --no-cache >"$tmp/3" 2>&1
  [ $? = 1 ] || { cat "$tmp/3"; fail "compile did not fail with exit 1"; }
  expect "$tmp/3" "$error" "$f/a.cu:6: note: includes \"sub/b.cuh\"" \
    "$f/sub/b.cuh:4: note: includes \"c.cuh\", which is not found" \
    "$searched, $f/inc (-I), then nvcc's CUDA headers and the host compiler's system folders" "$hint"
fi

"$kr" kernels $f/a.cu >"$tmp/4" 2>&1 && grep -q "kernel scale" "$tmp/4" || { cat "$tmp/4"; fail "kernels needed the header"; }
exit 0
