#!/usr/bin/env bash
# scripts/demo.sh KREWRITE: the main job on the bundled example (README.md, `make demo`).
set -euo pipefail
kr=${1:-build/release/krewrite}
ex=examples/vector_add
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
say() { printf '\n$ %s\n' "$*"; }

say krewrite kernels $ex/kernel.cu
"$kr" kernels $ex/kernel.cu

say krewrite apply $ex/identity.lua $ex/kernel.cu -o out.cu
"$kr" apply $ex/identity.lua $ex/kernel.cu -o "$out/out.cu"
if cmp -s $ex/kernel.cu "$out/out.cu"; then
  echo "identical to the input, byte for byte"
else
  echo "demo: the empty recipe changed the file" >&2
  exit 1
fi

for r in $ex/recipe*.lua; do
  [ -e "$r" ] || continue
  say krewrite apply "$r" $ex/kernel.cu --diff --log run.json
  "$kr" apply "$r" $ex/kernel.cu --diff --log "$out/run.json"
  say krewrite replay run.json "(checks the output's sha256)"
  "$kr" replay "$out/run.json" -o "$out/replayed.cu"
  echo "replayed byte for byte"
  say krewrite verify $ex/problem.lua --recipe "$r" "(the CPU emulator; --device cuda on a GPU)"
  "$kr" verify $ex/problem.lua --recipe "$r"
done
