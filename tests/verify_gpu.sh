#!/usr/bin/env bash
# tests/verify_gpu.sh KREWRITE: the verification protocol on the GPU (ctest label gpu; exit 77,
# skipped, without a GPU). One child runs every case: a verify of vector_add's recipe must take
# seconds, not a minute, and report its timing; a kernel that keeps state in __device__ memory
# fails its second run; a hang fails its case and skips the rest within the time limit; a
# kernel that faults fails its case and the next cases still run in a fresh child; an original
# that crashes stops verification once; the benchmark size is among the cases; with the buffers
# kept on the device, a candidate that writes its input or writes nothing is caught.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
nvidia-smi >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "verify_gpu: $*" >&2; exit 1; }
va=examples/vector_add/problem.lua
pl=tests/verify/planted
# The first run may compile with nvcc; the second finds the cubins cached.
"$kr" verify $va --recipe examples/vector_add/recipe.lua --device cuda --json >/dev/null 2>&1
"$kr" verify $va --recipe examples/vector_add/recipe.lua --device cuda --json >"$tmp/va.json" ||
  fail "vector_add's recipe does not verify on the GPU"
python3 - "$tmp/va.json" <<'PY' || fail "the report of vector_add's recipe is not what it should be"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["timing"]
print("vector_add on the GPU:", t, r["passed"], "passed")
assert r["failed"] == 0 and r["passed"] >= 12, r
assert any(c["kind"] == "benchmark size" for c in r["cases"]), "no benchmark-size case"
assert t["total_s"] < 10, "a warm verify took %.1f s" % t["total_s"]
assert t["gpu_setup_s"] > 0
PY
# The buffers stay on the device (filled, restored and checked there): a candidate that writes
# its input, or writes nothing, is still caught, and the timing has its breakdown.
out=$("$kr" verify $va --candidate tests/verify/bugs/writes_input.cu --device cuda 2>&1)
[ $? = 1 ] && grep -qF "the candidate modified input buffer 'x' (element 0)" <<<"$out" ||
  { echo "$out"; fail "a candidate that writes its input was not caught"; }
out=$("$kr" verify $va --candidate tests/verify/bugs/writes_nothing.cu --device cuda 2>&1)
[ $? = 1 ] && grep -qF "element 0 of 'out' is NaN: not written by the candidate" <<<"$out" ||
  { echo "$out"; fail "a candidate that writes nothing was not caught"; }
python3 - "$tmp/va.json" <<'PY' || fail "the timing has no breakdown"
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
assert t["fill_s"] > 0 and t["copy_s"] > 0 and t["compare_s"] > 0, t
assert t["fill_s"] + t["copy_s"] + t["compare_s"] <= t["run_s"], t
PY
out=$("$kr" verify $va --candidate $pl/memo.cu --device cuda 2>&1)
[ $? = 1 ] && grep -qF "on the second run in the same loaded module" <<<"$out" ||
  { echo "$out"; fail "state kept between calls was not caught"; }
start=$(date +%s)
out=$("$kr" verify $va --candidate tests/verify/bugs/hang.cu --device cuda --timeout 3 2>&1)
rc=$?
[ $rc = 1 ] && grep -qF "cases were skipped" <<<"$out" && [ $(( $(date +%s) - start )) -lt 40 ] ||
  { echo "$out"; fail "a hang did not fail its case and skip the rest in time"; }
"$kr" verify $va --candidate tests/verify/bugs/crash.cu --device cuda --json >"$tmp/crash.json" 2>/dev/null
python3 - "$tmp/crash.json" <<'PY' || fail "a faulting candidate did not fail every case, each in a fresh child"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["skipped"] == 0 and r["passed"] == 0 and r["failed"] >= 12, r
assert all(c["failure"] for c in r["cases"]), r
PY
out=$("$kr" verify $pl/original_crash.lua --candidate examples/vector_add/kernel.cu --device cuda 2>&1)
[ $? = 1 ] && grep -qF "so verification stopped" <<<"$out" ||
  { echo "$out"; fail "an original that crashes did not stop verification"; }
out=$("$kr" verify $pl/scale.lua --recipe $pl/scale_recipe.lua --device cuda 2>&1)
[ $? = 0 ] || { echo "$out"; fail "a launch change reached another kernel's launch"; }
echo "verify_gpu: ok"
