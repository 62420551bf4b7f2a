#!/usr/bin/env bash
# tests/verify_fake_gpu.sh KREWRITE: `krewrite verify --device cuda` end to end without a GPU, on
# the fake driver (tests/unit/cuda_fake_driver.c, built here; KR_FAKE_CUDA_ELF makes it load
# nvcc's real cubins and run examples/vector_add's kernel in C). One GPU child runs every case,
# the sizes beyond the tests and the benchmark size; a GPU with too little free memory for the
# benchmark size leaves that size out with a note and runs the rest. Exit 77 without nvcc or cc.
set -uo pipefail
kr=$1
source "$(dirname "$0")/fake_gpu.sh"
fake_gpu verify_fake_gpu
export KR_CUDA_LIB=$tmp/libcuda.so.1 KR_FAKE_CUDA_ELF=1
va=examples/vector_add/problem.lua
"$kr" verify $va --candidate examples/vector_add/kernel.cu --device cuda --arch sm_90 --json >"$tmp/a.json" ||
  { cat "$tmp/a.json"; fail "vector_add does not verify against itself on the fake GPU"; }
KR_FAKE_CUDA_FREE_MIB=300 "$kr" verify $va --candidate examples/vector_add/kernel.cu --device cuda \
  --arch sm_90 --json >"$tmp/b.json" || { cat "$tmp/b.json"; fail "a small GPU stopped verification"; }
python3 - "$tmp/a.json" "$tmp/b.json" <<'PY' || fail "the reports are not what they should be"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
kinds = [c["kind"] for c in a["cases"]]
assert a["failed"] == 0 and kinds.count("test") == 12, a
assert "benchmark size" in kinds and "beyond the test sizes" in kinds, kinds
t = a["timing"]
assert t["gpu_setup_s"] > 0 and t["total_s"] > 0 and t["fill_s"] > 0 and t["compare_s"] > 0, t
assert t["copy_s"] > 0 and t["fill_s"] + t["copy_s"] + t["compare_s"] <= t["run_s"], t
assert b["failed"] == 0 and "benchmark size" not in [c["kind"] for c in b["cases"]], b
assert any("not checked (benchmark size)" in n and "300.0 MiB free" in n for n in b["notes"]), b["notes"]
PY
# The GPU path keeps the buffers on the device (filled, restored and checked there): a candidate
# that writes its input, or writes nothing, is still caught (the fake's candidate module misbehaves),
# at the test sizes (--extra-budget 0: the benchmark size ran above).
out=$(KR_FAKE_CUDA_CANDIDATE_BUG=writes_input "$kr" verify $va --candidate examples/vector_add/kernel.cu \
  --device cuda --arch sm_90 --extra-budget 0 2>&1)
[ $? = 1 ] && grep -qF "the candidate modified input buffer 'x' (element" <<<"$out" ||
  { echo "$out"; fail "a candidate that writes its input was not caught on the GPU path"; }
out=$(KR_FAKE_CUDA_CANDIDATE_BUG=writes_nothing "$kr" verify $va --candidate examples/vector_add/kernel.cu \
  --device cuda --arch sm_90 --extra-budget 0 2>&1)
[ $? = 1 ] && grep -qF "is NaN: not written by the candidate" <<<"$out" ||
  { echo "$out"; fail "a candidate that writes nothing was not caught on the GPU path"; }
# bench makes its inputs on the device too: what --dump brings back is the generator's stream
# (uniform in [-1, 1), seed 1, stream 0), recomputed here in Python.
mkdir -p "$tmp/dump"
"$kr" bench $va --candidate examples/vector_add/kernel.cu --arch sm_90 --dump "$tmp/dump" >"$tmp/bench.txt" 2>&1 ||
  { cat "$tmp/bench.txt"; fail "bench does not run on the fake GPU"; }
python3 - "$tmp/dump/x.bin" <<'PY' || fail "bench's inputs are not the generator's"
import struct, sys
M = (1 << 64) - 1
def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)
key = mix(((1 * 0x9e3779b97f4a7c15) & M) ^ (((0 + 1) * 0xc2b2ae3d27d4eb4f) & M))
x = open(sys.argv[1], "rb").read(4 * 1000)
for i in range(1000):
    u = (mix((key + (i + 1) * 0x9e3779b97f4a7c15) & M) >> 11) * 2.0 ** -53
    want = struct.unpack("f", struct.pack("f", -1 + 2 * u))[0]
    got = struct.unpack_from("f", x, 4 * i)[0]
    assert got == want, (i, got, want)
PY
echo "verify_fake_gpu: ok"
