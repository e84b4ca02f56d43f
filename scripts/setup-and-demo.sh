#!/usr/bin/env bash
# Fresh Debian 12 machine with the CUDA toolkit -> built myblas and a demo run.
#   1. installs the Debian packages listed in scripts/packages.sh,
#   2. configures and builds a Release build in build/ (default CUDA architectures),
#   3. runs build/examples/myblas_demo (host arrays; device arrays too if a GPU is present).
# Usage: scripts/setup-and-demo.sh [demo size n, default 2048]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh

install_packages
find_nvcc
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
echo "== build/examples/myblas_demo ${1:-}"
build/examples/myblas_demo "$@"
