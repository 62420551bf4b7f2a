#!/usr/bin/env bash
# scripts/fuzz.sh BUILD_DIR SECONDS: runs the fuzzers (the front end, then the analyses passes
# build on) for SECONDS in all, shared between them, each seeded with the test corpus (copied, so
# the fuzzers' new inputs never land in the source tree). Findings are kept in
# BUILD_DIR/fuzz-findings and fail the run.
set -euo pipefail
build=$1
seconds=${2:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$build/fuzz-findings"
cp tests/corpus/*.cu "$work/corpus/" 2>/dev/null || true
targets=(fuzz_frontend fuzz_analyses)
each=$(( seconds / ${#targets[@]} ))
[ "$each" -ge 1 ] || each=1
for target in "${targets[@]}"; do
  echo "fuzz: running $target for ${each}s"
  "$build/tests/fuzz/$target" -max_total_time="$each" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-findings/$target-" "$work/corpus" \
    >"$build/$target.log" 2>&1 || { tail -40 "$build/$target.log"; echo "fuzz: $target FAILED (inputs in $build/fuzz-findings)"; exit 1; }
  grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$build/$target.log" | sed "s/^/fuzz: $target: /" || true
done
echo "fuzz: no crashes in ${seconds}s"
