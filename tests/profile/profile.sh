#!/usr/bin/env bash
# The job's profile (mpcr run --profile, mpcr profile; docs/profile.md):
# - exact counts: tests/profile/profile_counts.c's calls per rank (calls,
#   bytes sent), summed in profile.json, its call sites named with their
#   source lines, round trips counted;
# - the same for its Open MPI build on mpcr's libmpi.so.40 (PROFILE_OMPI:
#   its path, when built), whose sites must be the program's, not the
#   front end's;
# - off, nothing is written; a directory that cannot be made is refused;
# - across checkpoints: RING... (a tests/ckpt program) profiled without a
#   checkpoint, then checkpointed with --exit at 3 random instants and
#   restarted: each rank's calls and bytes per function equal the
#   uninterrupted run's, and so does the output.
#   profile.sh PROFILE_COUNTS RING...
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
counts=$1
shift
. "$(dirname "$0")/../cli/common.sh" profile
src=$(dirname "$0")/profile_counts.c
line_of() { grep -n "$1" "$src" | cut -d: -f1; }

# fn FILE NAME COLUMN: a function's calls (3), time (4) or bytes (5) in a rank's file
fn() { awk -F'\t' -v n="$2" -v c="$3" '$1 == "fn" && $2 == n { print $c }' "$1"; }
want() { # want FILE NAME CALLS BYTES
    local calls bytes
    calls=$(fn "$1" "$2" 3) bytes=$(fn "$1" "$2" 5)
    [ "$calls $bytes" = "$3 $4" ] ||
        fail "$1: $2 counted ${calls:-no} calls and ${bytes:-no} bytes, not $3 and $4"
}

# counted PDIR WHAT: profile_counts' exact figures in PDIR
counted() {
    local p=$1 r0=$1/rank-0.prof r1=$1/rank-1.prof
    [ -f "$r0" ] && [ -f "$r1" ] || fail "$2: the ranks' profiles are missing: $(ls "$p")"
    want "$r0" MPI_Send 103 $((100 * 8 * 8 + 3 * 7 * 12))
    want "$r1" MPI_Recv 103 0
    for r in "$r0" "$r1"; do
        want "$r" MPI_Allreduce 10 $((10 * 4 * 4))
        want "$r" MPI_Bcast 5 0
        want "$r" MPI_Type_contiguous 1 0
        want "$r" MPI_Comm_size 1 0
        [ "$(awk -F'\t' '$1 == "trips" { print ($2 > 10) }' "$r")" = 1 ] ||
            fail "$2: $r counts too few round trips to its proxy: $(grep '^trips' "$r")"
    done
    [ -z "$(fn "$r1" MPI_Send 3)" ] || fail "$2: rank 1 counted an MPI_Send it never made"
    grep -q '"name": "MPI_Allreduce", "calls": 20, ' "$p/profile.json" ||
        fail "$2: profile.json does not sum MPI_Allreduce's 20 calls: $(grep MPI_Allreduce "$p/profile.json" | head -1)"
    grep -qE '^ *[0-9]+ MPI_Send +100 calls .* main in ' "$p/profile.txt" ||
        fail "$2: profile.txt does not name MPI_Send's site in main with its 100 calls: $(grep -A25 '^call sites' "$p/profile.txt")"
}

# ---- exact counts, sites with their lines, round trips
"$MPCR" run -n 2 --profile "$scratch/p1" "$counts" 100 >"$scratch/p1.out" 2>"$scratch/p1.err" ||
    fail "the profiled run failed (status $?)"
grep -q "profile_counts rank 1: sum 4950, allreduce 1, bcast hello" "$scratch/p1.out" ||
    fail "the profiled run printed: $(cat "$scratch/p1.out")"
grep -q "profile: $scratch/p1/profile.txt" "$scratch/p1.err" || fail "mpcr run did not say where the profile is"
counted "$scratch/p1" "the MPICH build"
for site in SEND RECV ALLREDUCE; do
    grep -q "profile_counts.c:$(line_of "SITE-$site")\$" "$scratch/p1/profile.txt" ||
        fail "profile.txt does not name line $(line_of "SITE-$site") of profile_counts.c (SITE-$site): $(grep -A25 '^call sites' "$scratch/p1/profile.txt")"
done
"$MPCR" profile "$scratch/p1" >"$scratch/again.txt" || fail "mpcr profile failed (status $?)"
cmp -s "$scratch/again.txt" "$scratch/p1/profile.txt" || fail "mpcr profile does not print profile.txt"
echo "exact counts, sums, sites and source lines: ok"

# ---- the Open MPI build: the same counts, the program's own sites
if [ -n "${PROFILE_OMPI:-}" ]; then
    "$MPCR" run -n 2 --profile "$scratch/p2" "$PROFILE_OMPI" 100 >"$scratch/p2.out" 2>"$scratch/p2.err" ||
        fail "the profiled Open MPI build failed (status $?)"
    counted "$scratch/p2" "the Open MPI build"
    grep -q "libmpi.so" "$scratch/p2/profile.txt" && fail "the Open MPI build's sites name mpcr's front end"
    echo "the Open MPI build: ok"
fi

# ---- off: nothing written; refused where it cannot write
mkdir "$scratch/cwd"
(cd "$scratch/cwd" && env -u MPCR_PROFILE "$MPCR" run -n 2 "$counts" 10 >/dev/null 2>&1) || fail "the run without a profile failed"
[ -z "$(ls -A "$scratch/cwd")" ] || fail "a run without --profile wrote $(ls -A "$scratch/cwd")"
"$MPCR" run -n 2 --profile /proc/mpcr-no-such-dir "$counts" 10 >/dev/null 2>"$scratch/bad.err"
rc=$?
[ $rc = 1 ] && grep -q "cannot make the directory /proc/mpcr-no-such-dir" "$scratch/bad.err" ||
    fail "--profile into /proc: status $rc, said: $(cat "$scratch/bad.err")"
"$MPCR" profile "$scratch/cwd" >/dev/null 2>"$scratch/none.err"
rc=$?
[ $rc = 1 ] && grep -q "no rank wrote a profile" "$scratch/none.err" ||
    fail "mpcr profile of an empty directory: status $rc, said: $(cat "$scratch/none.err")"
echo "off and refusals: ok"

# ---- across checkpoints
touch "$scratch/ref.release" # the reference runs past the hold, which the pieces make too
CKPT_HOLD=$scratch/ref.release "$MPCR" run -n 2 --profile "$scratch/ref" "$@" >"$scratch/ref.out" 2>"$scratch/ref.err" ||
    fail "the uninterrupted profiled run failed"
hold_jobs
unset CKPT_MIDWAY
ck=$scratch/ck
piece=0
start_piece() {
    if [ $piece = 0 ]; then
        "$MPCR" run -n 2 --ckpt-dir "$ck" --profile "$scratch/cut" "$@" >"$scratch/piece0.out" 2>"$scratch/piece0.err" &
    else
        "$MPCR" restart "$ck" >"$scratch/piece$piece.out" 2>"$scratch/piece$piece.err" &
    fi
    job=$!
}
seed=${PROFILE_SEED:-$RANDOM}
RANDOM=$seed
for c in 1 2 3; do
    start_piece "$@"
    wait_connected "$job" 2 "$ck" 60
    sleep "0.$((1 + RANDOM % 4))" # 0.1-0.4 s: three of them stay well inside the job
    "$MPCR" checkpoint --exit "$ck" >"$scratch/ckpt$c.out" 2>"$scratch/ckpt$c.err" ||
        fail "checkpoint $c failed (seed $seed): $(cat "$scratch/ckpt$c.err")"
    wait "$job" || fail "piece $piece ended with status $? after checkpoint $c"
    not_at_hold "$ck" "$(newest_complete "$ck")" "checkpoint $c"
    piece=$c
done
touch "$scratch/release"
start_piece "$@"
wait "$job" || fail "the last restart failed (status $?)"
job=
same_output "$scratch/ref.out" "$scratch"/piece?.out
"$MPCR" profile "$scratch/cut" >/dev/null || fail "mpcr profile of the restarted job failed"
for r in 0 1; do
    for p in ref cut; do
        awk -F'\t' '$1 == "fn" { print $2, $3, $5 }' "$scratch/$p/rank-$r.prof" | sort >"$scratch/$p.$r"
    done
    cmp -s "$scratch/ref.$r" "$scratch/cut.$r" ||
        fail "rank $r's calls after 3 checkpoints and restarts differ from the uninterrupted run's (seed $seed): $(diff "$scratch/ref.$r" "$scratch/cut.$r" | head)"
done
echo "3 checkpoints (seed $seed): every rank's calls and bytes equal the uninterrupted run's"
echo "PASS"
