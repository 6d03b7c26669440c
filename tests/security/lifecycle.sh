#!/usr/bin/env bash
# No state that cannot be ended, no process left behind, statuses and
# messages that say what happened (issue 13, points 7, 8, 9):
#  - mpcr-restore given a FIFO ends at once with a message (it used to
#    block in open() for good, immune to SIGTERM), given a directory says
#    so, given a missing file says it in words;
#  - `kill -9` of `mpcr run --no-mpi` ends its program (parent-death
#    signal); the next run on the directory removes the stale socket and
#    the leftovers of an interrupted checkpoint and says so;
#  - SIGINT and SIGHUP reach the program of `mpcr run --no-mpi`; a program
#    that ends with status 0 when told to still leaves mpcr with 128 + the
#    signal;
#  - a checkpoint onto a full disk (root: a 100 KiB tmpfs) fails naming
#    the image file and the cause in words;
#  - an MPI job under `mpcr run` told SIGTERM ends with status 143, and a
#    stale run directory of a killed `mpcr run` is removed.
#   lifecycle.sh SEC_WAIT MPI_PROGRAM ARGS...     (env MPCR)
set -u
name=lifecycle
. "$(dirname "$0")/common.sh"
prog=$1
shift
restorer=$(dirname "$MPCR")/../libexec/mpcr/mpcr-restore

# mpcr-restore on what is no image
mkfifo "$T/fifo"
timeout -k 5 20 "$restorer" "$T/fifo" 2>"$T/fifo.err"
rc=$?
[ $rc = 1 ] || fail "mpcr-restore of a FIFO ended with status $rc (124: it blocked), not 1"
grep -q "fifo is a FIFO, not an image" "$T/fifo.err" || fail "FIFO: $(cat "$T/fifo.err")"
timeout -k 5 20 "$restorer" --check "$T" 2>"$T/dir.err" && fail "mpcr-restore --check of a directory succeeded"
grep -q "is a directory, not an image" "$T/dir.err" || fail "directory: $(cat "$T/dir.err")"
timeout -k 5 20 "$restorer" "$T/none.img" 2>"$T/none.err" && fail "mpcr-restore of a missing file succeeded"
grep -q "no such file or directory (ENOENT)" "$T/none.err" || fail "missing file: $(cat "$T/none.err")"

"$MPCR" restart "$T/fifo" 2>"$T/restart-file.err" && fail "mpcr restart of a FIFO succeeded"
grep -q "is a file, not a checkpoint directory" "$T/restart-file.err" || fail "restart of a file: $(cat "$T/restart-file.err")"

# kill -9 of mpcr run --no-mpi: the program must not go on alone
"$MPCR" run --no-mpi --ckpt-dir "$T/ck" "$prog" orphan 60 >"$T/orphan.out" 2>"$T/orphan.err" &
run=$!
pids="$pids $run"
wait_for -S "$T/ck/coord.sock" || fail "mpcr run did not start"
child=
for _ in $(seq 200); do child=$(pgrep -P $run) && break; sleep 0.05; done
[ -n "$child" ] || fail "the program of mpcr run was not found"
pids="$pids $child"
{ kill -9 $run && wait $run; } 2>/dev/null
gone=0
for _ in $(seq 400); do kill -0 "$child" 2>/dev/null || { gone=1; break; }; sleep 0.05; done
[ $gone = 1 ] || fail "the program (pid $child) went on running after kill -9 of mpcr run"
# what a killed coordinator leaves: its socket, a temporary, an incomplete generation
mkdir "$T/ck/gen-77" && echo partial >"$T/ck/gen-77/rank-0.img.tmp" && echo x >"$T/ck/coord.secret.tmp"
[ -S "$T/ck/coord.sock" ] || fail "the killed mpcr run left no coord.sock to clean (test assumption)"
"$MPCR" run --no-mpi --ckpt-dir "$T/ck" "$prog" again 0.2 >"$T/again.out" 2>"$T/again.err" ||
    fail "the next run on the directory failed: $(cat "$T/again.err")"
for what in "coord.sock, left by a coordinator" "coord.secret.tmp, left by" "gen-77, a checkpoint that was never completed"; do
    grep -q "removed .*$what" "$T/again.err" || fail "the next run did not say it removed $what: $(cat "$T/again.err")"
done
[ -e "$T/ck/gen-77" ] && fail "gen-77 is still there"
grep -q "^again done" "$T/again.out" || fail "the next run printed: $(cat "$T/again.out")"

# a full disk: the failed write names the file and says ENOSPC in words
# (root only: a small tmpfs in a mount namespace of the test's own)
if is_root && unshare -m true 2>/dev/null; then
    mkdir "$T/small"
    unshare -m bash -c "mount -t tmpfs -o size=100k none '$T/small' &&
        { '$MPCR' run --no-mpi --ckpt-dir '$T/small/ck' '$prog' full 3 >/dev/null 2>&1 &
          sleep 0.5; '$MPCR' checkpoint '$T/small/ck'; rc=\$?; wait; exit \$rc; }" 2>"$T/full.err" && fail "a checkpoint onto a full disk succeeded"
    grep -q "checkpoint failed: writing .*/gen-1/rank-0.img.tmp: No space left on device" "$T/full.err" ||
        fail "full disk: $(cat "$T/full.err")"
    full="ENOSPC named with the file"
else
    full="full disk not tried (not root)"
fi

# signals passed on, and the status after them
trapper='trap "echo told; exit 0" INT HUP TERM; while :; do sleep 0.05; done'
for sig in INT HUP; do
    env --default-signal=INT "$MPCR" run --no-mpi --ckpt-dir "$T/s$sig" bash -c "$trapper" >"$T/$sig.out" 2>"$T/$sig.err" &
    run=$!
    pids="$pids $run"
    wait_for -S "$T/s$sig/coord.sock" || fail "mpcr run ($sig) did not start"
    sleep 0.3
    kill -$sig $run
    for _ in $(seq 400); do kill -0 $run 2>/dev/null || break; sleep 0.05; done
    kill -0 $run 2>/dev/null && fail "SIG$sig to mpcr run did not end the program"
    wait $run
    rc=$?
    grep -qx told "$T/$sig.out" || fail "the program was not told SIG$sig"
    want=$((128 + $(kill -l $sig)))
    [ $rc = $want ] || fail "mpcr run ended with $rc after SIG$sig (the program exited 0), not $want"
done

# an MPI job told SIGTERM; a stale run directory of a killed mpcr run
mkdir -p "$T/tmp/mpcr-run-stale"
touch -d '-5 minutes' "$T/tmp/mpcr-run-stale"
TMPDIR=$T/tmp "$MPCR" run -n 2 "$@" >"$T/mpi.out" 2>"$T/mpi.err" &
run=$!
pids="$pids $run"
sleep 2
kill -TERM $run
wait $run
rc=$?
[ $rc = 143 ] || fail "mpcr run -n 2 ended with $rc after SIGTERM, not 143"
grep -q "removed .*mpcr-run-stale" "$T/mpi.err" || fail "the stale run directory was not removed: $(cat "$T/mpi.err")"
[ -e "$T/tmp/mpcr-run-stale" ] && fail "the stale run directory is still there"
echo "$name: PASS ($full; FIFO, directory, missing image refused with words; no orphan after kill -9; leftovers removed and said; SIGINT, SIGHUP passed on, status 130, 129; MPI job after SIGTERM: 143)"
