#!/usr/bin/env bash
# tests/template_gpu.sh KREWRITE: template kernels that only the spec launches build for the GPU
# (issue 16, item 5). On the fake driver (tests/unit/cuda_fake_driver.c, which loads nvcc's real
# cubin and runs ns::scale<float, K> in C), tests/fixtures/template_gpu verifies against itself
# with --device cuda: the cubin must hold both instantiations, which nothing in the file makes.
# Exit 77 without nvcc or cc.
set -uo pipefail
kr=$1
cd "$(dirname "$0")/.." || exit 1
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || exit 77
command -v cc >/dev/null || exit 77
export PATH=$PATH:/usr/local/cuda/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "template_gpu: $*" >&2; exit 1; }
cc -shared -fPIC -O1 -I . -o "$tmp/libcuda.so.1" tests/unit/cuda_fake_driver.c || fail "cannot build the fake driver"
out=$(KR_CUDA_LIB=$tmp/libcuda.so.1 KR_FAKE_CUDA_ELF=1 "$kr" verify tests/fixtures/template_gpu/problem.lua \
  --candidate tests/fixtures/template_gpu/kernel.cu --device cuda --arch sm_90 2>&1)
rc=$?
[ $rc = 0 ] && grep -q ' 0 failed' <<<"$out" || { echo "$out"; fail "the template kernels did not verify on the GPU path (rc $rc)"; }
# The emulator accepts the same file.
"$kr" verify tests/fixtures/template_gpu/problem.lua --candidate tests/fixtures/template_gpu/kernel.cu >"$tmp/emu" 2>&1 ||
  { cat "$tmp/emu"; fail "the emulator refused the file"; }
exit 0
