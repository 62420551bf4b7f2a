#!/usr/bin/env bash
# scripts/demo.sh KREWRITE: the main job on a bundled example (README.md, `make demo`).
#   1. `krewrite kernels` and an empty recipe that reproduces the file byte for byte;
#   2. `krewrite optimize` with the built-in proposer: candidates verified on the CPU emulator, or
#      on the GPU and timed when one is present;
#   3. `krewrite replay` of the best candidate and `krewrite report`, the page of the run.
# Results stay in demo-out/ (KR_DEMO_OUT moves them): run.json, best.json, report.html.
set -euo pipefail
kr=${1:-build/release/krewrite}
ex=${KR_DEMO_EXAMPLE:-examples/vector_add}
out=${KR_DEMO_OUT:-demo-out}
say() { printf '\n$ %s\n' "$*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say krewrite kernels $ex/kernel.cu
"$kr" kernels $ex/kernel.cu

say krewrite apply $ex/identity.lua $ex/kernel.cu -o out.cu
"$kr" apply $ex/identity.lua $ex/kernel.cu -o "$tmp/out.cu"
if cmp -s $ex/kernel.cu "$tmp/out.cu"; then
  echo "identical to the input, byte for byte"
else
  echo "demo: the empty recipe changed the file" >&2
  exit 1
fi

# On a GPU the candidates are verified there and timed; otherwise the emulator verifies them.
device=cpu
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then device=cuda; fi
rm -rf "$out"
say krewrite optimize $ex/problem.lua --rounds 3 --device $device --out $out
"$kr" optimize $ex/problem.lua --rounds 3 --device $device --out "$out"

say krewrite replay $out/best.json "(rebuilds the best kernel; checks its sha256)"
"$kr" replay "$out/best.json" -o "$out/best.cu"
say diff -u $ex/kernel.cu $out/best.cu
diff -u $ex/kernel.cu "$out/best.cu" || true

say krewrite report $out/run.json -o $out/report.html
"$kr" report "$out/run.json" -o "$out/report.html"
