#!/usr/bin/env bash
# A request that reaches an MPI job's coordinator as the job ends (an `mpcr
# checkpoint` racing the program's end) is answered, not dropped: a client
# connected and silent when the job ends is told why no checkpoint was
# taken (src/coord/conns.c, mpcr_conns_farewell).
#   request_at_end.sh RING ARGS...   (MPCR: the mpcr binary)
set -u
. "$(dirname "$0")/common.sh" request_at_end
conns=$(dirname "$0")/../security/conns.py
# The silent connection must outlive the job, not be timed out first. A
# job that ends before the client could connect is run again.
for try in 1 2 3 4 5; do
    rm -rf "$scratch/ck"
    MPCR_COORD_SILENT_TIMEOUT=120 "$MPCR" run -n 2 --ckpt-dir "$scratch/ck" "$@" \
        >"$scratch/run.out" 2>"$scratch/run.err" &
    job=$!
    for _ in $(seq 600); do [ -S "$scratch/ck/coord.sock" ] && break; sleep 0.05; done
    [ -S "$scratch/ck/coord.sock" ] || fail "the job's coordinator did not start"
    python3 -B "$conns" wait "$scratch/ck/coord.sock" 120 >"$scratch/answer" 2>"$scratch/wait.err" &
    waiter=$!
    wait "$job" || fail "the job failed"
    job=
    wait "$waiter"
    answer=$(cat "$scratch/answer")
    [ "$answer" = gone ] || break
done
[ "$answer" = "error the job ended before the checkpoint began; none was taken" ] ||
    fail "the waiting client got '$answer', not the job's end"
echo "PASS: a client waiting as the job ended was told: $answer (job $try)"
