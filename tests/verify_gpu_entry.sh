#!/usr/bin/env bash
# tests/verify_gpu_entry.sh KREWRITE: a spec's host entry point on the GPU (ctest
# label gpu; exit 77, skipped, without a GPU). The entry is built by nvcc as a shared object with the
# kernels it launches and run in the GPU process: a candidate with its own grid and block
# (tests/fixtures/entry/matmul_tiled.cu) verifies against examples/matmul through launch_matmul, at
# the benchmark size too, and bench times both through their launchers; a launcher whose host code
# varies the launches (reduce.cu's passes), one with a cudaMalloc of its own, one that raises its
# kernel's shared memory limit to 64 KiB (cudaFuncSetAttribute), a pass skipped (a wrong
# result), a launch the runtime refuses (named by the CUDA runtime's error and the entry) and an
# entry that calls a function nothing defines (named, demangled).
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
nvidia-smi >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "verify_gpu_entry: $*" >&2; exit 1; }
en=tests/fixtures/entry
expect() {   # expect RC TEXT ARGS...: krewrite ARGS exits RC and prints TEXT
  local rc=$1 text=$2
  shift 2
  out=$("$kr" "$@" 2>&1)
  local got=$?
  [ $got = "$rc" ] && grep -qF -- "$text" <<<"$out" || { echo "$out"; fail "krewrite $* (rc $got, want $rc and '$text')"; }
}
"$kr" verify $en/matmul.lua --candidate $en/matmul_tiled.cu --device cuda --json >"$tmp/mm.json" ||
  { cat "$tmp/mm.json"; fail "the tiled candidate does not verify through launch_matmul on the GPU"; }
python3 - "$tmp/mm.json" <<'PY' || fail "the report of the tiled candidate is not what it should be"
import json, sys
r = json.load(open(sys.argv[1]))
kinds = [c["kind"] for c in r["cases"]]
print("matmul through its launcher on the GPU:", r["passed"], "passed;", r["timing"])
assert r["failed"] == 0 and kinds.count("test") == 10, r
assert "benchmark size" in kinds, kinds
PY
expect 0 " 0 failed" verify $en/reduce.lua --candidate $en/reduce_own_block.cu --device cuda
expect 0 " 0 failed" verify $en/scale.lua --candidate $en/scale_tmp.cu --device cuda
expect 0 " 0 failed" verify $en/scale.lua --candidate $en/scale_big_smem.cu --device cuda
expect 1 "FAIL  n=3 seed 1  sum: rel_l2" verify $en/reduce.lua --candidate $en/reduce_skips_pass.cu --device cuda
expect 1 "invalid argument, in entry 'launch_scale' (the CUDA runtime's error once it returned)" \
  verify $en/scale.lua --candidate $en/scale_bad_block.cu --device cuda
expect 1 "the candidate's entry library cannot be loaded: undefined symbol 'host_timer_seconds()'" \
  verify $en/scale.lua --candidate $en/scale_undefined.cu --device cuda
# bench through the launchers: both run once on the same inputs (their outputs must agree), then
# timed interleaved, the events around each entry's call.
"$kr" bench $en/matmul.lua --candidate $en/matmul_tiled.cu --json >"$tmp/bench.json" 2>"$tmp/bench.err" ||
  { cat "$tmp/bench.json" "$tmp/bench.err"; fail "bench does not run through the launchers"; }
python3 - "$tmp/bench.json" <<'PY' || fail "bench's report through the launchers is not what it should be"
import json, sys
r = json.load(open(sys.argv[1]))
print("bench through launch_matmul:", r["original"]["median_ms"], "ms ->", r["candidate_times"]["median_ms"], "ms,",
      "relative L2 at 4096:", r["check_rel_l2"])
assert r["error"] is None and r["speedup"] > 1 and 0 <= r["check_rel_l2"] < 1e-6, r
PY
exit 0
