#!/usr/bin/env bash
# tests/recipe_print.sh KREWRITE: a recipe that starts with a UTF-8 byte order mark and a #! line
# loads and reports errors at the file's own line numbers; its print() output goes to stderr, and
# stdout carries only the rewritten source.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "recipe_print: $*" >&2; echo "--- stdout" >&2; cat "$tmp/out" >&2; echo "--- stderr" >&2; cat "$tmp/err" >&2; exit 1; }

printf '\xef\xbb\xbf#!/usr/bin/env krewrite apply\nprint("planning", 42, true, nil)\nkr.kernel("vector_add"):apply("restrict")\n' >"$tmp/ok.lua"
"$kr" apply "$tmp/ok.lua" examples/vector_add/kernel.cu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || fail "a recipe with a BOM and a #! line: exit $rc, wanted 0"
grep -q '__restrict__' "$tmp/out" || fail "stdout lacks the rewritten source"
grep -q 'planning' "$tmp/out" && fail "print() went to stdout"
grep -qP '^planning\t42\ttrue\tnil$' "$tmp/err" || fail "stderr lacks the printed line"

printf '\xef\xbb\xbf#!/usr/bin/env krewrite apply\nlocal k = kr.kernel("vector_add")\nk:apply("no_such_pass")\n' >"$tmp/bad.lua"
"$kr" apply "$tmp/bad.lua" examples/vector_add/kernel.cu -o "$tmp/never.cu" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "a failing recipe: exit $rc, wanted 1"
grep -qF "bad.lua:3: error: unknown pass 'no_such_pass'" "$tmp/err" || fail "the error is not at line 3"
[ -e "$tmp/never.cu" ] && fail "an output file was written"
exit 0
