#!/usr/bin/env bash
# Set up (packages, build) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
ctest --output-on-failure --timeout 600 -j2 "$@"
