#!/usr/bin/env bash
# tests/golden.sh KREWRITE CASE: one golden pass test. CASE is tests/passes/<pass>/<case> without
# an extension; the folder holds <case>.cu (the input), <case>.lua (the recipe) and either
#   <case>.out.cu  the expected output: apply must succeed and print exactly this; the run's log
#                  must replay to the same bytes; nvcc -arch=sm_90 -cubin must compile it (without
#                  nvcc the test passes on the comparisons and says it did not compile)
#   <case>.err     the expected diagnostics (stderr): apply must fail with exit 1 and print
#                  exactly this, and write no output file
# Optional <case>.args holds extra apply arguments (one line, e.g. "-D width=2").
# KR_REGEN=1 rewrites the expectation from what krewrite does now; review the diff before
# committing it.
set -uo pipefail
kr=$1
case_base=$2
dir=$(dirname "$case_base")
name=$(basename "$case_base")
cd "$dir" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=()
[ -f "$name.args" ] && read -r -a args <"$name.args"

fail() { echo "golden $case_base: $*" >&2; exit 1; }

"$kr" apply "$name.lua" "$name.cu" -o "$tmp/out.cu" --log "$tmp/run.json" "${args[@]}" \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?

if [ "${KR_REGEN:-0}" = 1 ]; then
  if [ $rc = 0 ]; then cp "$tmp/out.cu" "$name.out.cu"; rm -f "$name.err"
  else cp "$tmp/stderr" "$name.err"; rm -f "$name.out.cu"; fi
  echo "regenerated $case_base (exit $rc)"
fi

if [ -f "$name.err" ]; then
  [ $rc = 1 ] || fail "expected exit 1 with diagnostics, got exit $rc"
  [ -e "$tmp/out.cu" ] && fail "an output file was written although the recipe failed"
  diff -u "$name.err" "$tmp/stderr" || fail "diagnostics differ from $name.err"
  exit 0
fi
[ -f "$name.out.cu" ] || fail "no $name.out.cu or $name.err expectation"
[ $rc = 0 ] || { cat "$tmp/stderr" >&2; fail "apply failed with exit $rc"; }
diff -u "$name.out.cu" "$tmp/out.cu" || fail "output differs from $name.out.cu"
"$kr" replay "$tmp/run.json" -o "$tmp/replay.cu" 2>"$tmp/replay.err" || {
  cat "$tmp/replay.err" >&2; fail "replay failed"; }
cmp -s "$tmp/out.cu" "$tmp/replay.cu" || fail "replay is not byte-identical"
nvcc=${CUDACXX:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  # What was checked passes; what was not is said (a machine without CUDA, such as CI's).
  echo "golden $case_base: output and replay compared with $name.out.cu; not compiled (no nvcc here)"
  exit 0
fi
arch=-arch=sm_90   # wgmma builds for Hopper's arch-specific target only (as backend/nvcc.c does)
! grep -q 'wgmma\.' "$tmp/out.cu" || arch=-gencode=arch=compute_90a,code=sm_90a
"$nvcc" $arch -std=c++17 -cubin -o "$tmp/out.cubin" "$tmp/out.cu" >"$tmp/nvcc.log" 2>&1 || {
  cat "$tmp/nvcc.log" >&2; fail "nvcc rejected the output"; }
exit 0
