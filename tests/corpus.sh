#!/usr/bin/env bash
# tests/corpus.sh KREWRITE FILE.cu: one corpus test (tests/corpus/README.md).
#   valid files:   `krewrite kernels` exits 0 and prints exactly FILE.kernels; `krewrite apply`
#                  with an empty recipe reproduces FILE.cu byte for byte
#   broken_*.cu:   `krewrite kernels` exits 1 and prints exactly FILE.err on stderr; `apply`
#                  exits 1 and creates no output file
# KR_REGEN=1 rewrites the expectation from what krewrite does now; review the diff.
set -uo pipefail
kr=$1
file=$2
dir=$(dirname "$file")
name=$(basename "$file" .cu)
cd "$dir" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "corpus $name: $*" >&2; exit 1; }
printf -- '-- a recipe that applies no passes\n' >"$tmp/empty.lua"

"$kr" kernels "$name.cu" >"$tmp/out" 2>"$tmp/err"
rc=$?
case $name in
  broken_*)
    [ "${KR_REGEN:-0}" = 1 ] && cp "$tmp/err" "$name.err"
    [ $rc = 1 ] || fail "expected exit 1, got $rc"
    diff -u "$name.err" "$tmp/err" || fail "diagnostics differ from $name.err"
    "$kr" apply "$tmp/empty.lua" "$name.cu" -o "$tmp/round.cu" 2>/dev/null
    rc=$?
    [ $rc = 1 ] || fail "apply on a broken file: expected exit 1, got $rc"
    [ -e "$tmp/round.cu" ] && fail "apply wrote an output file for a broken input"
    ;;
  *)
    [ "${KR_REGEN:-0}" = 1 ] && cp "$tmp/out" "$name.kernels"
    [ $rc = 0 ] || { cat "$tmp/err" >&2; fail "expected exit 0, got $rc"; }
    case $name in
      host_error_*)   # host code that does not parse: warnings with their place, the kernels read
        [ "${KR_REGEN:-0}" = 1 ] && cp "$tmp/err" "$name.err"
        diff -u "$name.err" "$tmp/err" || fail "diagnostics differ from $name.err"
        grep -q ': warning: ' "$tmp/err" || fail "no warning for the host code" ;;
      *) [ -s "$tmp/err" ] && { cat "$tmp/err" >&2; fail "unexpected diagnostics"; } ;;
    esac
    diff -u "$name.kernels" "$tmp/out" || fail "kernel model differs from $name.kernels"
    "$kr" apply "$tmp/empty.lua" "$name.cu" -o "$tmp/round.cu" || fail "apply failed"
    cmp "$name.cu" "$tmp/round.cu" || fail "an empty recipe did not reproduce the file byte for byte"
    ;;
esac
exit 0
