#!/usr/bin/env bash
# Set up (packages, build), then run a small MPI program natively and under
# mpcr and compare what the two runs print.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null

program=build/tests/t_ring
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== native:  mpiexec.mpich -n 2 $program"
mpiexec.mpich -n 2 "$program" | tee "$out/native" | tail -3
echo "== mpcr:    build/bin/mpcr run -n 2 $program"
build/bin/mpcr run -n 2 "$program" | tee "$out/mpcr" | tail -3
if cmp -s "$out/native" "$out/mpcr"; then
    echo "== identical output ($(wc -l <"$out/mpcr") lines): every MPI call went through mpcr's proxy"
else
    echo "== outputs DIFFER:"; diff "$out/native" "$out/mpcr" | head; exit 1
fi
