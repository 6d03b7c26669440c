#!/usr/bin/env bash
# A restarted program waits as its new placement asks, not as its image
# remembers: the library's spin and yield times come from the new proxy at
# restart (src/lib/runtime/restart.c, docs/channel.md). Each job starts with one
# MPCR_SPIN_NS, is checkpointed with --exit after round 2, and restarts with
# the other; rank 1's share of CPU while it waits in MPI_Recv (rank 0 sleeps
# 200 ms a round) must follow the restart's setting: near 0 when it sleeps,
# a good part of the wait when it spins for 5 s (26-36 % here, idle or
# beside two busy loops: the proxies spin too, so 3 processes want the 2
# cores). Output as the native run's.
#   wait_times.sh MPCR PROGRAM
set -u
mpcr=$1 prog=$2
T=$(mktemp -d /tmp/mpcr-wait-times.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "wait_times: $*"; for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
SPIN=5000000000 ROUNDS=8 MS=200

mpiexec.mpich -n 2 "$prog" $ROUNDS $MS >"$T/ref" 2>/dev/null || fail "the native run failed"

# job NAME SPIN_BEFORE SPIN_AFTER: prints the median cpu share of the rounds
# the restarted job began itself (the first it prints may have begun before
# the checkpoint)
job() {
    local name=$1 before=$2 after=$3
    MPCR_SPIN_NS=$before "$mpcr" run -n 2 --ckpt-dir "$T/$name" "$prog" $ROUNDS $MS \
        >"$T/$name.out" 2>"$T/$name.run.err" &
    local pid=$!
    while kill -0 $pid 2>/dev/null && ! grep -q "round 2 done" "$T/$name.out"; do sleep 0.05; done # while the job lives: load-proof
    grep -q "round 2 done" "$T/$name.out" || fail "$name: round 2 never ended"
    "$mpcr" checkpoint --exit "$T/$name" 2>"$T/$name.ck.err" || fail "$name: the checkpoint failed"
    wait $pid
    MPCR_SPIN_NS=$after "$mpcr" restart "$T/$name" >>"$T/$name.out" 2>"$T/$name.restart.err" ||
        fail "$name: the restart failed"
    sort -u "$T/$name.out" >"$T/b"
    cmp -s "$T/ref" "$T/b" || fail "$name: output differs from the native run's: $(diff "$T/ref" "$T/b" | head -5)"
    local shares
    shares=$(grep -o 'cpu [0-9]* %' "$T/$name.restart.err" | awk '{print $2}' | tail -n +2 | sort -n)
    [ "$(echo "$shares" | grep -c .)" -ge 3 ] || fail "$name: too few rounds after the restart: $shares"
    echo "$shares" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
slept_then_spun=$(job spin_after 0 $SPIN)
spun_then_slept=$(job sleep_after $SPIN 0)
echo "rank 1's cpu while waiting, median after the restart: $slept_then_spun % (restarted spinning), $spun_then_slept % (restarted sleeping)"
[ "$slept_then_spun" -ge 10 ] || fail "restarted with MPCR_SPIN_NS=$SPIN, the program still slept through its waits ($slept_then_spun %)"
[ "$spun_then_slept" -le 5 ] || fail "restarted with MPCR_SPIN_NS=0, the program still spun through its waits ($spun_then_slept %)"
echo "wait_times: PASS"
