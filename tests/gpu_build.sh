#!/usr/bin/env bash
# tests/gpu_build.sh KREWRITE FIXTURE: what the GPU build of a real file needs, on
# the fake driver (tests/unit/cuda_fake_driver.c, which loads nvcc's real cubin and runs a few known
# kernels in C): FIXTURE/problem.lua verifies FIXTURE/kernel.cu against itself with --device cuda,
# and on the emulator, which must accept the same file.
#   tests/fixtures/template_gpu   template kernels only the spec launches: the build instantiates them
#   tests/fixtures/host_only      host code this toolkit rejects: the build leaves host bodies out
# Exit 77 without nvcc or cc.
set -uo pipefail
kr=$1
fx=$2
source "$(dirname "$0")/fake_gpu.sh"
fake_gpu "gpu_build $fx"
out=$(KR_CUDA_LIB=$tmp/libcuda.so.1 KR_FAKE_CUDA_ELF=1 "$kr" verify $fx/problem.lua --candidate $fx/kernel.cu \
  --device cuda --arch sm_90 2>&1)
rc=$?
[ $rc = 0 ] && grep -q ' 0 failed' <<<"$out" || { echo "$out"; fail "did not verify on the GPU path (rc $rc)"; }
grep -q 'warning' <<<"$out" && { echo "$out"; fail "the GPU build warned about what krewrite left out"; }
"$kr" verify $fx/problem.lua --candidate $fx/kernel.cu >"$tmp/emu" 2>&1 || { cat "$tmp/emu"; fail "the emulator refused the file"; }
exit 0
