#!/usr/bin/env bash
# tests/differential.sh KREWRITE EXAMPLE PASS: differential verification of one pass on one
# example (examples/EXAMPLE). A recipe tries PASS on every kernel of the example (opting in to
# lowering for fast_math); if it applies to at least one, `krewrite verify` must pass on the CPU
# emulator. If it applies to none, the pair must be listed in tests/differential_na.txt (then the
# test passes on that finding); a listed pair that applies fails, so the list stays true.
set -uo pipefail
kr=$1
ex=$2
pass=$3
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/examples/$ex
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/try.lua" <<'LUA'
-- Tries one pass (-D pass=NAME) on every kernel in the file: its defaults first, then the
-- variants below (a pass whose defaults need a constant trip count gets a factor, and so on).
local pass = kr.param("pass", "restrict")
local variants = {
  unroll = { {}, { factor = 4 }, { factor = 2 } },
  vectorize = { {}, { width = 2 } },
}
if kr.pass(pass).precision == "lowers" then kr.allow_lowering() end
for _, name in ipairs(kr.kernels()) do
  for _, params in ipairs(variants[pass] or { {} }) do
    if kr.kernel(name):try(pass, params) then break end
  end
end
LUA
"$kr" apply "$tmp/try.lua" "$dir/kernel.cu" -D pass="$pass" -o "$tmp/out.cu" --log "$tmp/run.json" \
  2>"$tmp/apply.err" || { cat "$tmp/apply.err" >&2; echo "differential $ex/$pass: apply failed" >&2; exit 1; }
# Each applied pass leaves a record with a "given" field; the -D define does not.
listed=$(grep -m1 "^$ex $pass " "$root/tests/differential_na.txt")
if ! grep -q '"given":' "$tmp/run.json"; then
  if [ -n "$listed" ]; then
    echo "differential $ex/$pass: applies to no kernel here, as tests/differential_na.txt says (${listed#"$ex $pass  "})"
    exit 0
  fi
  echo "differential $ex/$pass: the pass applies to no kernel here, and tests/differential_na.txt does not list" \
    "the pair; list it with the reason if that is right" >&2
  exit 1
fi
[ -z "$listed" ] || {
  echo "differential $ex/$pass: tests/differential_na.txt lists the pair as not applicable, but the pass applies;" \
    "remove its line" >&2
  exit 1
}
# The emulator runs a schedule pass's default tile (1024 threads a block, each stopping at every
# barrier) several times slower than the original; on a loaded two-core machine one launch of
# gemm_accum's 517 x 613 x 131 took over the default 20 s. A hang is still caught, later.
"$kr" verify "$dir/problem.lua" --recipe "$tmp/try.lua" -D pass="$pass" --timeout 90 >"$tmp/verify.out" 2>&1
rc=$?
cat "$tmp/verify.out"
[ $rc = 0 ] || { echo "differential $ex/$pass: verification failed (exit $rc)" >&2; exit 1; }
exit 0
