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

# An MPI job checkpointed mid-way (messages in flight), ended, restarted: its
# result must be the uninterrupted run's.
program=build/tests/t_ckpt_ring
echo "== uninterrupted: mpiexec.mpich -n 2 $program 2000 2"
mpiexec.mpich -n 2 "$program" 2000 2 | tee "$out/ref" | tail -2
echo "== mpcr run -n 2 --ckpt-dir ck ...; after 1.5 s: mpcr checkpoint --exit ck"
build/bin/mpcr run -n 2 --ckpt-dir "$out/ck" "$program" 2000 2 >"$out/first" &
sleep 1.5
build/bin/mpcr checkpoint --exit "$out/ck"
wait
echo "== the job printed $(wc -l <"$out/first") lines before the checkpoint; mpcr restart ck:"
build/bin/mpcr restart "$out/ck" | tee "$out/restarted" | tail -2
if cat "$out/first" "$out/restarted" | cmp -s "$out/ref" -; then
    echo "== checkpointed + restarted output is identical to the uninterrupted run's"
else
    echo "== restart result DIFFERS"; exit 1
fi
