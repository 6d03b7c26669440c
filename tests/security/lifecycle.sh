#!/usr/bin/env bash
# No state that cannot be ended, no process left behind, statuses and
# messages that say what happened (issue 13, points 7, 8, 9):
#  - mpcr-restore given a FIFO ends at once with a message (it used to
#    block in open() for good, immune to SIGTERM), given a directory says
#    so, given a missing file says it in words;
#  - `kill -9` of `mpcr run --no-mpi` ends its program (parent-death
#    signal); the next run on the directory removes the stale socket and
#    the leftovers of an interrupted checkpoint and says so; so does the
#    next run after `kill -9` of a standalone `mpcr coordinator`, and
#    `mpcr restart` after `kill -9` of `mpcr run` (also a .tmp inside a
#    complete generation), which then restores;
#  - a stray report from the process itself is logged as refused;
#  - SIGINT, SIGHUP and SIGTERM reach the program of `mpcr run --no-mpi`; a program
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

# kill -9 of a standalone coordinator: the next `mpcr run` on its
# directory removes the socket it left and says so
# (a random port may be taken: another is tried when the coordinator ends
# before it serves)
for _ in 1 2 3 4 5; do
    port=$(free_port)
    "$MPCR" coordinator --listen "127.0.0.1:$port" -n 1 --ckpt-dir "$T/co" 2>>"$T/co.err" &
    coord=$!
    pids="$pids $coord"
    for _ in $(seq 400); do [ -s "$T/co/coord.secret" ] || ! kill -0 $coord 2>/dev/null && break; sleep 0.05; done
    [ -s "$T/co/coord.secret" ] && break
done
[ -s "$T/co/coord.secret" ] || fail "mpcr coordinator did not start"
{ kill -9 $coord && wait $coord; } 2>/dev/null
[ -S "$T/co/coord.sock" ] || fail "the killed coordinator left no coord.sock to clean (test assumption)"
"$MPCR" run --no-mpi --ckpt-dir "$T/co" "$prog" co 0.2 >"$T/co.out" 2>"$T/co-run.err" ||
    fail "mpcr run after kill -9 of the coordinator failed: $(cat "$T/co-run.err")"
grep -q "removed $T/co/coord.sock, left by a coordinator that is gone" "$T/co-run.err" ||
    fail "mpcr run did not say it removed the killed coordinator's coord.sock: $(cat "$T/co-run.err")"
[ -S "$T/co/coord.sock" ] && fail "coord.sock is still there after the run"
grep -q "^co done" "$T/co.out" || fail "the run after the killed coordinator printed: $(cat "$T/co.out")"

# kill -9 of `mpcr run` after a checkpoint: `mpcr restart` removes what it
# left (the socket, a temporary, a generation never completed, and a .tmp
# inside the complete gen-1), says so, and restores gen-1
"$MPCR" run --no-mpi --ckpt-dir "$T/rs" "$prog" rs 3 >"$T/rs.out" 2>"$T/rs-run.err" &
run=$!
pids="$pids $run"
wait_for -S "$T/rs/coord.sock" || fail "mpcr run (to restart) did not start"
sleep 0.3
"$MPCR" checkpoint "$T/rs" 2>"$T/rs-ck.err" || fail "the checkpoint to restart from failed"
{ kill -9 $run && wait $run; } 2>/dev/null
[ -S "$T/rs/coord.sock" ] || fail "the killed mpcr run left no coord.sock (test assumption)"
mkdir "$T/rs/gen-9" && echo partial >"$T/rs/gen-9/rank-0.img.tmp"
echo partial >"$T/rs/gen-1/rank-0.img.tmp" && echo x >"$T/rs/coord.job.tmp"
timeout -k 5 60 "$MPCR" restart "$T/rs" >"$T/rs.out" 2>"$T/rs.err" || fail "the restart after kill -9 failed: $(cat "$T/rs.err")"
for what in "coord.sock, left by a coordinator that is gone" "coord.job.tmp, left by a coordinator" \
    "gen-9, a checkpoint that was never completed" "gen-1/rank-0.img.tmp, a temporary file left behind"; do
    grep -q "removed $T/rs/$what" "$T/rs.err" || fail "mpcr restart did not say it removed $what: $(cat "$T/rs.err")"
done
for f in gen-9 gen-1/rank-0.img.tmp coord.job.tmp; do [ -e "$T/rs/$f" ] && fail "$f is still there after the restart"; done
grep -q "^rs done after 300 steps" "$T/rs.out" || fail "the restart printed: $(cat "$T/rs.out")"

# a report from the process itself while no checkpoint is asked for (a
# stray or repeated one): answered "continue", logged as refused, no
# generation written
"$MPCR" run --no-mpi --ckpt-dir "$T/st" python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1] + "/coord.sock")
s.sendall(b"image 7 ok 5\n")
print("answer:", s.makefile().readline().strip())' "$T/st" >"$T/st.out" 2>"$T/st.err" ||
    fail "the program sending a stray report failed: $(cat "$T/st.err")"
grep -qx "answer: continue" "$T/st.out" || fail "a stray report from the process was answered: $(cat "$T/st.out")"
grep -q 'refused "image 7 ok 5": no checkpoint is in progress' "$T/st.err" ||
    fail "the coordinator did not log the stray report as refused: $(cat "$T/st.err")"
ls -d "$T"/st/gen-* >/dev/null 2>&1 && fail "a stray report made a generation: $(ls "$T/st")"

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
for sig in INT HUP TERM; do
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
echo "$name: PASS ($full; FIFO, directory, missing image refused with words; no orphan after kill -9; leftovers removed and said (by run and restart); SIGINT, SIGHUP, SIGTERM passed on, status 130, 129, 143; MPI job after SIGTERM: 143)"
