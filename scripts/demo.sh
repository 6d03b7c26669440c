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

# The checkpoint engine on its own (MPI jobs come next, docs/mpi-checkpoint.md):
# a 4-thread computation is checkpointed mid-way, ended, restarted, and must
# give the checksum of an uninterrupted run.
program=build/tests/engine/st_checksum
echo "== uninterrupted: $program 6000"
"$program" 6000 | tee "$out/ref"
echo "== mpcr run --no-mpi, checkpoint --exit after 1 s, restart"
build/bin/mpcr run --no-mpi --ckpt-dir "$out/ck" "$program" 6000 >"$out/first" &
sleep 1
build/bin/mpcr checkpoint --exit "$out/ck"
wait
build/bin/mpcr restart "$out/ck" | tee "$out/restarted"
if [ ! -s "$out/first" ] && cmp -s "$out/ref" "$out/restarted"; then
    echo "== the restarted process finished with the uninterrupted run's checksum"
else
    echo "== restart result DIFFERS"; exit 1
fi
