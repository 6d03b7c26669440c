#!/usr/bin/env bash
# A restarted program waits as its new placement asks, not as its image
# remembers: the library's spin and yield times come from the new proxy at
# restart (src/lib/runtime/restart.c, docs/channel.md). Each job starts with one
# MPCR_SPIN_NS, is checkpointed with --exit after round 2, and restarts with
# the other; rank 1 waits in MPI_Recv each round (rank 0 sleeps 200 ms
# first) and counts its main thread's sleeps in that wait (voluntary context
# switches), which must follow the restart's setting: none when it spins for
# 5 s, at least one when it sleeps. Its CPU share in the wait is printed,
# not judged: spinning it was 26-36 % on the idle machine, but 0 % beside
# two busy loops and other work (a spin yields the core, and the scheduler
# gave it none), where the sleeps still told the two apart. Output as the
# native run's.
#   wait_times.sh MPCR PROGRAM
set -u
mpcr=$1 prog=$2
T=$(mktemp -d /tmp/mpcr-wait-times.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "wait_times: $*"; for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
SPIN=5000000000 ROUNDS=8 MS=200

mpiexec.mpich -n 2 "$prog" $ROUNDS $MS >"$T/ref" 2>/dev/null || fail "the native run failed"

# job NAME SPIN_BEFORE SPIN_AFTER: sets medians to the median CPU share and
# the median sleeps of the rounds the restarted job began itself (the first
# it prints may have begun before the checkpoint)
job() {
    local name=$1 before=$2 after=$3
    MPCR_SPIN_NS=$before "$mpcr" run -n 2 --ckpt-dir "$T/$name" "$prog" $ROUNDS $MS \
        >"$T/$name.out" 2>"$T/$name.run.err" &
    local pid=$!
    while kill -0 $pid 2>/dev/null && ! grep -qs "round 2 done" "$T/$name.out"; do sleep 0.05; done # while the job lives: load-proof
    grep -q "round 2 done" "$T/$name.out" || fail "$name: round 2 never ended"
    "$mpcr" checkpoint --exit "$T/$name" 2>"$T/$name.ck.err" || fail "$name: the checkpoint failed"
    wait $pid
    MPCR_SPIN_NS=$after "$mpcr" restart "$T/$name" >>"$T/$name.out" 2>"$T/$name.restart.err" ||
        fail "$name: the restart failed"
    sort -u "$T/$name.out" >"$T/b"
    cmp -s "$T/ref" "$T/b" || fail "$name: output differs from the native run's: $(diff "$T/ref" "$T/b" | head -5)"
    local rounds
    rounds=$(grep -o 'cpu [0-9]* % of the wait, [0-9]* sleeps' "$T/$name.restart.err" | tail -n +2)
    [ "$(echo "$rounds" | grep -c .)" -ge 3 ] || fail "$name: too few rounds after the restart: $rounds"
    # medians: CPU share and sleeps
    median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
    medians="$(awk '{print $2}' <<<"$rounds" | median) $(awk '{print $7}' <<<"$rounds" | median)"
}
job spin_after 0 $SPIN
read -r spun_cpu spun_sleeps <<<"$medians"
job sleep_after $SPIN 0
read -r slept_cpu slept_sleeps <<<"$medians"
echo "rank 1 while waiting, medians after the restart: restarted spinning $spun_sleeps sleeps, cpu $spun_cpu %;" \
    "restarted sleeping $slept_sleeps sleeps, cpu $slept_cpu %"
[ "$spun_sleeps" = 0 ] || fail "restarted with MPCR_SPIN_NS=$SPIN, the program still slept in its waits ($spun_sleeps sleeps, cpu $spun_cpu %)"
[ "$slept_sleeps" -ge 1 ] || fail "restarted with MPCR_SPIN_NS=0, the program still spun through its waits (no sleep, cpu $slept_cpu %)"
echo "wait_times: PASS"
