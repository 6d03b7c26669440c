#!/usr/bin/env bash
# An MPI job's files bound to their slots (issue 13, point 2): two jobs, A
# and B, of 2 ranks, each checkpointed with --exit. In copies of B's
# directory: rank 0's and rank 1's images swapped, A's rank-1 image in B's
# slot, A's rank-0 state file in B's slot, B's state file writable by its
# group (as root also owned by nobody), its size edited in the manifest.
# `mpcr restart` must refuse each with status 1 naming the file and whose
# it is or what is wrong (it used to run until the program's checks
# aborted, or hang). A damaged region in rank 1's image must end the
# restart with a message naming rank-1.img. B runs under umask 000, and its
# directories must be 0700, its files 0600. The intact copy restarts to
# the native run's output.
#   binding_mpi.sh PROGRAM ARGS...     (env MPCR; 2 ranks)
set -u
name=binding_mpi
. "$(dirname "$0")/common.sh"
timeout 120 mpiexec.mpich -n 2 "$@" >"$T/ref" 2>/dev/null || fail "the native run failed"

# checkpointed TAG: job TAG in $T/TAG, checkpointed with --exit
checkpointed() {
    local tag=$1
    shift
    set -- "$tag" "$@"
    # the job holds its end (tests/ckpt/ckpt.h) until the last restart: it cannot end first
    CKPT_HOLD=$T/release "$MPCR" run -n 2 --ckpt-dir "$T/$1" "${@:2}" >"$T/$1.out" 2>"$T/$1-run.err" &
    local run=$! try
    pids="$pids $run"
    sleep 0.2 # the loop below retries until the job has started
    for try in $(seq 120); do
        timeout -k 10 150 "$MPCR" checkpoint --exit "$T/$1" 2>"$T/$1-ck.err" && break
        kill -0 $run 2>/dev/null || fail "job $1 ended before its checkpoint"
        grep -qE "try again|nothing is running" "$T/$1-ck.err" || fail "job $1: checkpoint --exit failed"
        sleep 0.25
    done
    wait $run || fail "job $1 ended with status $? after checkpoint --exit"
}
checkpointed A "$@"
# B under umask 000: what mpcr, its proxies and the engines create is the
# owner's alone all the same (point 4).
umask 000
checkpointed B "$@"
umask 022
ga=$(cd "$T/A" && ls -d gen-* | tail -1) gb=$(cd "$T/B" && ls -d gen-* | tail -1)
for f in . "$gb"; do
    [ "$(mode_of "$T/B/$f")" = 700 ] || fail "B/$f has mode $(mode_of "$T/B/$f") under umask 000, not 700"
done
for f in manifest rank-0.img rank-1.img rank-0.state rank-1.state; do
    [ "$(mode_of "$T/B/$gb/$f")" = 600 ] || fail "B/$gb/$f has mode $(mode_of "$T/B/$gb/$f") under umask 000, not 600"
done

n=0
fresh() { rm -rf "$T/c" && cp -a "$T/B" "$T/c"; }
refused() {
    timeout -k 5 60 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err"
    local rc=$?
    [ $rc = 1 ] || fail "$1: mpcr restart ended with status $rc, not 1 ($(head -3 "$T/r.err"))"
    grep -q -- "$2" "$T/r.err" || fail "$1: the message does not say '$2': $(cat "$T/r.err")"
    echo "refused $1: $(grep -m1 restart "$T/r.err")"
    n=$((n + 1))
}
fresh && mv "$T/c/$gb/rank-0.img" "$T/c/x" && mv "$T/c/$gb/rank-1.img" "$T/c/$gb/rank-0.img" &&
    mv "$T/c/x" "$T/c/$gb/rank-1.img" && refused "rank images swapped" "rank-0.img belongs to .*rank 1, .*another rank's file"
fresh && cp "$T/A/$ga/rank-1.img" "$T/c/$gb/rank-1.img" && refused "job A's rank-1 image in B" "rank-1.img belongs to .*another job"
fresh && cp "$T/A/$ga/rank-0.state" "$T/c/$gb/rank-0.state" && refused "job A's rank-0 state in B" "rank-0.state belongs to .*another job"
# A state file's size is in no total: only its own line in the manifest
# binds it, and an edit there is refused naming the file.
fresh
size=$(awk '$1 == "file" && $2 == "rank-1.state" { print $3 }' "$T/c/$gb/manifest")
[ -n "$size" ] || fail "the manifest lists no rank-1.state: $(cat "$T/c/$gb/manifest")"
sed -i "s/^file rank-1.state $size /file rank-1.state $((size + 8)) /" "$T/c/$gb/manifest" &&
    refused "rank-1.state's size in the manifest" "$T/c/$gb/rank-1.state is not the file the manifest lists ($size bytes, .*the manifest says $((size + 8)) bytes"
# The state file's owner and mode are checked as the image's are (point 1).
st=$T/c/$gb/rank-0.state
fresh && chmod g+w "$st" && refused "rank-0.state writable by its group" "$st is writable by other users (mode 0620)"
if is_root; then
    fresh && chown nobody "$st" &&
        refused "rank-0.state owned by nobody" "$st is owned by uid $(id -u nobody), not by the user restoring it"
    others="owners checked"
else
    others="not root: other owners not tried"
fi
# A damaged region of rank 1's image passes the manifest (its checksum is
# in the region table): the job starts, rank 1's restorer finds it, and the
# restart must fail saying which file (point 9), not hang or blame rank 0.
fresh && printf '\x5a\xa5' | dd of="$T/c/$gb/rank-1.img" bs=1 seek=$((4096 + 4000)) conv=notrunc status=none
timeout -k 10 120 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err"
rc=$?
[ $rc = 0 ] && fail "a job whose rank-1.img has a damaged region was restored"
[ $rc = 124 ] || [ $rc = 137 ] && fail "the restart of a damaged rank-1.img hung"
grep -q "$T/c/$gb/rank-1.img: .*corrupt" "$T/r.err" || fail "damaged rank-1.img (status $rc): $(cat "$T/r.err")"
echo "refused a damaged region of rank-1.img (status $rc): $(grep -m1 corrupt "$T/r.err")"
touch "$T/release" # the hold
fresh && timeout -k 10 120 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err" || fail "the intact copy did not restart: $(tail -3 "$T/r.err")"
# what B printed before its checkpoint, and what the restart printed after
cat "$T/B.out" "$T/r.out" | sort | cmp -s - <(sort "$T/ref") ||
    fail "the restarted job's output differs from the native run's: $(cat "$T/B.out" "$T/r.out")"
echo "$name: PASS ($n files of other slots or open to others refused; $others; a damaged rank-1.img named; the intact copy restarted to the native output)"
