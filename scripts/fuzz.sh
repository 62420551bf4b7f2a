#!/usr/bin/env bash
# scripts/fuzz.sh BUILD_DIR SECONDS: runs the front-end fuzzer for SECONDS, seeded with the test
# corpus (copied, so the fuzzer's new inputs never land in the source tree). Findings are kept
# in BUILD_DIR/fuzz-findings and fail the run.
set -euo pipefail
build=$1
seconds=${2:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$build/fuzz-findings"
cp tests/corpus/*.cu "$work/corpus/" 2>/dev/null || true
echo "fuzz: running the front-end fuzzer for ${seconds}s"
"$build/tests/fuzz/fuzz_frontend" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$build/fuzz-findings/" "$work/corpus" \
  >"$build/fuzz.log" 2>&1 || { tail -40 "$build/fuzz.log"; echo "fuzz: FAILED (inputs in $build/fuzz-findings)"; exit 1; }
grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$build/fuzz.log" | sed 's/^/fuzz: /' || true
echo "fuzz: no crashes in ${seconds}s"
