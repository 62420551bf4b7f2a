#!/usr/bin/env bash
# scripts/build-gpu.sh: builds the krewrite that travels to the lent GPU machine (bench/h200.sh).
# That machine (Ubuntu 24.04, CUDA 13) has no Lua, tree-sitter, libseccomp or cJSON, so Lua,
# libseccomp and tree-sitter are linked statically and libcjson travels beside the binary. The
# result lands in .gpu/ (ignored by git; name it in the device call's `carry`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build/deps
cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DKR_STATIC_DEPS=ON >/dev/null
cmake --build build/gpu -j "$(nproc)" --target krewrite
mkdir -p .gpu
cp build/gpu/krewrite .gpu/
cp -L /usr/lib/x86_64-linux-gnu/libcjson.so.1 .gpu/
echo "build-gpu: .gpu/krewrite ($(ldd .gpu/krewrite | grep -c '=>') shared libraries):"
ldd .gpu/krewrite | sed 's/^/  /'
