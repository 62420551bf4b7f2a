#!/usr/bin/env bash
# tests/hostile.sh KREWRITE RECIPE.lua: a hostile recipe (tests/recipes/hostile/) must be stopped
# by `krewrite apply` with exit 1, a message containing the recipe's `-- expect:` text, within
# the limits (the wall clock lowered to 5 s so the test is quick), and no output or log file.
set -uo pipefail
kr=$1
recipe=$2
src=$(cd "$(dirname "$0")/.." && pwd)/examples/vector_add/kernel.cu
expect=$(sed -n '1s/^-- expect: //p' "$recipe")
[ -n "$expect" ] || { echo "hostile $recipe: no '-- expect:' line" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
timeout 60 "$kr" apply "$recipe" "$src" -o "$tmp/out.cu" --log "$tmp/run.json" \
  --max-seconds 5 >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
took=$(( $(date +%s) - start ))
fail() { echo "hostile $(basename "$recipe"): $*" >&2; cat "$tmp/stderr" >&2; exit 1; }
[ $rc = 1 ] || fail "expected exit 1, got $rc"
grep -qF -- "$expect" "$tmp/stderr" || fail "stderr lacks '$expect'"
[ -e "$tmp/out.cu" ] && fail "an output file was written"
[ -e "$tmp/run.json" ] && fail "a log was written"
[ "$took" -le 15 ] || fail "took ${took}s, beyond the 5 s limit it was given"
exit 0
