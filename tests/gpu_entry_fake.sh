#!/usr/bin/env bash
# tests/gpu_entry_fake.sh KREWRITE: what of a spec's entry on the GPU shows without
# a GPU, on the fake driver (tests/unit/cuda_fake_driver.c): nvcc builds the entry as a shared object
# with the kernels, the GPU process loads it from memory, and a launcher that calls a host function
# nothing defines is refused there with the function demangled (never a cache or /proc path). Exit 77
# without nvcc or cc. The runs themselves need the CUDA runtime on a real driver: tests/verify_gpu_entry.sh.
set -uo pipefail
kr=$1
source "$(dirname "$0")/fake_gpu.sh"
fake_gpu gpu_entry_fake
en=tests/fixtures/entry
out=$(KR_CUDA_LIB=$tmp/libcuda.so.1 KR_FAKE_CUDA_ELF=1 "$kr" verify $en/scale_undefined.lua --candidate $en/scale.cu \
  --device cuda --arch sm_90 2>&1)
rc=$?
want="the GPU process could not start: the reference's entry library cannot be loaded: undefined symbol 'host_timer_seconds()'"
[ $rc = 1 ] && grep -qF "$want" <<<"$out" || { echo "$out"; fail "the undefined host function was not named (rc $rc)"; }
grep -q "/proc/\|\.krc\|\.so" <<<"$out" && { echo "$out"; fail "the message names a file krewrite made"; }
exit 0
