#!/usr/bin/env bash
# tests/expect.sh RC TEXT CMD ARGS...: runs CMD ARGS from the source root and passes when it
# exits with RC and its stdout or stderr contains TEXT (a fixed string).
set -uo pipefail
want_rc=$1
text=$2
shift 2
cd "$(dirname "$0")/.." || exit 1
out=$("$@" 2>&1)
rc=$?
if [ "$rc" != "$want_rc" ]; then
  printf '%s\n' "$out" >&2
  echo "expect: exit $rc, wanted $want_rc: $*" >&2
  exit 1
fi
if ! grep -qF -- "$text" <<<"$out"; then
  printf '%s\n' "$out" >&2
  echo "expect: output lacks '$text': $*" >&2
  exit 1
fi
exit 0
