# tests/fake_gpu.sh, sourced by the tests that run krewrite's GPU path without a GPU: fake_gpu NAME
# enters the repository's root, exits 77 (skipped) without nvcc or cc, puts the toolkit in PATH, makes
# $tmp (removed at exit), defines fail (messages prefixed with NAME) and builds the fake driver
# (tests/unit/cuda_fake_driver.c, -ffp-contract=off so that its kernels round as the reference's do)
# as $tmp/libcuda.so.1, for KR_CUDA_LIB.
fake_gpu() {
  fake_gpu_name=$1
  cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || exit 77
  command -v cc >/dev/null || exit 77
  export PATH=$PATH:/usr/local/cuda/bin
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cc -shared -fPIC -O1 -ffp-contract=off -I . -o "$tmp/libcuda.so.1" tests/unit/cuda_fake_driver.c ||
    fail "cannot build the fake driver"
}
fail() { echo "$fake_gpu_name: $*" >&2; exit 1; }
