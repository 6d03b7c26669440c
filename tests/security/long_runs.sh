#!/usr/bin/env bash
# Long runs (issue 13, point 11), by hand, not in the test suite; the
# results go to docs/reliability.md.
#  1. One process through CONTINUE checkpoint-and-continue in a row with
#     --keep 2: its output as without checkpoints; the coordinator's
#     resident memory and open descriptors after the 10th and the last.
#  2. One process through CYCLES --exit/restart cycles at random instants
#     (0-300 ms after each restart), then run to its end: the same output.
#  3. An MPI job (NRANKS ranks, the ring of tests/ckpt) through MPI_CONTINUE
#     checkpoints with --keep 2: the coordinator's and each proxy's memory
#     and descriptors after the 5th and the last; output as natively.
#   long_runs.sh SEC_WAIT RING [CONTINUE=1000] [CYCLES=100] [MPI_CONTINUE=100] [NRANKS=2]
#   (env MPCR)
set -u
name=long_runs
. "$(dirname "$0")/common.sh"
prog=$1 ring=$2 continues=${3:-1000} cycles=${4:-100} mpi_continues=${5:-100} nranks=${6:-2}
usage() { # PID: "RSS kB, N descriptors"
    echo "$(awk '/^VmRSS/ {print $2}' "/proc/$1/status") kB, $(ls "/proc/$1/fd" | wc -l) fds"
}

# 1
"$MPCR" run --no-mpi --keep 2 --ckpt-dir "$T/c1" "$prog" one 100000 >"$T/one.out" 2>"$T/one.err" &
run=$!
pids="$pids $run"
wait_for -S "$T/c1/coord.sock" || fail "part 1 did not start"
start=$(date +%s)
for i in $(seq "$continues"); do
    "$MPCR" checkpoint "$T/c1" 2>"$T/ck.err" || fail "part 1: checkpoint $i failed: $(cat "$T/ck.err")"
    [ "$i" = 10 ] && at10=$(usage $run)
done
atend=$(usage $run)
kept=$(ls -d "$T"/c1/gen-* | wc -l)
echo "part 1: $continues checkpoints in $(($(date +%s) - start)) s; coordinator after the 10th: $at10; after the last: $atend; generations kept: $kept"
"$MPCR" checkpoint --exit "$T/c1" 2>/dev/null || fail "part 1: --exit failed"
wait $run

# 2
"$prog" two 30 >"$T/two.ref"
"$MPCR" run --no-mpi --ckpt-dir "$T/c2" "$prog" two 30 >"$T/two.out" 2>"$T/two.err" &
run=$!
sleep 0.3
"$MPCR" checkpoint --exit "$T/c2" 2>/dev/null || fail "part 2: the first --exit failed"
wait $run
start=$(date +%s)
for i in $(seq "$cycles"); do
    "$MPCR" restart "$T/c2" >>"$T/two.out" 2>"$T/r.err" &
    run=$!
    sleep "0.$(printf %03d $((RANDOM % 300)))"
    ok=0
    for _ in $(seq 40); do
        "$MPCR" checkpoint --exit "$T/c2" 2>"$T/ck.err" && { ok=1; break; }
        sleep 0.05
    done
    wait $run
    [ $ok = 1 ] || fail "part 2: cycle $i: no --exit checkpoint ($(cat "$T/ck.err"); $(cat "$T/r.err"))"
done
"$MPCR" restart "$T/c2" >>"$T/two.out" 2>"$T/r.err" || fail "part 2: the last restart failed"
cmp -s "$T/two.ref" "$T/two.out" || fail "part 2: output $(cat "$T/two.out"), natively $(cat "$T/two.ref")"
echo "part 2: $cycles --exit/restart cycles in $(($(date +%s) - start)) s; output as without: $(cat "$T/two.out")"

# 3
[ "$mpi_continues" = 0 ] && exit 0
"$MPCR" run -n "$nranks" --keep 2 --ckpt-dir "$T/c3" "$ring" 1000000 1 >"$T/ring.out" 2>"$T/ring.err" &
run=$!
pids="$pids $run"
# this job's proxies: their environment names its checkpoint directory
proxies_of_job() {
    local p
    for p in $(pgrep -f mpcr-proxy-mpich); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "MPCR_CKPT_DIR=$T/c3" && echo "$p"
    done
}
start=$(date +%s)
done_ck=0
for i in $(seq $((mpi_continues * 3))); do
    [ $done_ck = "$mpi_continues" ] && break
    if ! "$MPCR" checkpoint "$T/c3" 2>"$T/ck.err"; then
        grep -q "try again" "$T/ck.err" || fail "part 3: checkpoint $i failed: $(cat "$T/ck.err")"
        sleep 0.2
        continue
    fi
    done_ck=$((done_ck + 1))
    if [ $done_ck = 5 ]; then
        proxies=$(proxies_of_job)
        p5=""; for p in $proxies; do p5="$p5 [$(usage "$p")]"; done
        c5=$(usage $run)
    fi
done
pend=""; for p in $proxies; do pend="$pend [$(usage "$p")]"; done
echo "part 3: $done_ck checkpoints of $nranks ranks in $(($(date +%s) - start)) s; coordinator after the 5th: $c5, after the last: $(usage $run); proxies after the 5th:$p5; after the last:$pend"
"$MPCR" checkpoint --exit "$T/c3" 2>/dev/null || fail "part 3: --exit failed"
wait $run
echo "$name: done"
