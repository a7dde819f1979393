#!/usr/bin/env bash
# Compiles the CUDA kernels for the CPU with cuda_emu.h and runs kernels_test.cpp against double-precision
# references. Skips (exit 0) when g++ is not on PATH. Usage: run.sh <module-dir>
set -euo pipefail
module=$(cd "${1:-.}" && pwd)
if ! command -v g++ > /dev/null; then
    echo "[emulation] g++ not on PATH: CPU emulation of the kernels skipped"
    exit 0
fi
here=$module/src/test/emulation
work=$module/target/emulation
rm -rf "$work" && mkdir -p "$work/gen"
cp "$module"/src/main/cuda/*.cuh "$work/gen/"
for cu in "$module"/src/main/cuda/*.cu; do
    sed 's/extern __shared__/extern/' "$cu" > "$work/gen/$(basename "$cu")"
done
g++ -std=c++20 -O2 -fno-strict-aliasing -pthread -I"$here" -I"$work" "$here/kernels_test.cpp" -o "$work/kernels_test"
echo "[emulation] running the kernels on the CPU (one std::thread per CUDA thread):"
"$work/kernels_test"
