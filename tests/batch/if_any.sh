#!/usr/bin/env bash
# `mpcr exec --restart-if-any DIR PROGRAM ARGS` (docs/batch-systems.md
# "Requeue") on what DIR may hold, under mpiexec.mpich, against the native
# run of the same program:
#   if_any.sh NPROCS PROGRAM ARGS...      (env MPCR)
# several  DIR absent at first: a fresh start (--keep 3); `mpcr checkpoint
#          DIR` (gen-1, the job goes on), `mpcr checkpoint --exit DIR`
#          (gen-2; neither at the program's final hold); then a copy of
#          gen-2 without its manifest as gen-3 (a checkpoint whose writer
#          died). The second run must resume from gen-2, the newest
#          complete one (coord.launch "gen 2"): the two pieces' output is
#          the native run's, its status the native one's.
# partial  DIR holds only a generation without its manifest (gen-2's
#          images as gen-1): a fresh start (coord.launch "gen 0"), output
#          and status the native run's.
# empty    DIR exists and is empty: the same.
# No process of the jobs may be left after each.
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
. "$(dirname "$0")/common.sh"
batch_start ifany "$n" "$@"

# launched_gen WHO DIR GEN: rank 0's coord.launch says it restarted GEN (0: fresh)
launched_gen() {
    grep -qx "gen $3" "$2/coord.launch" ||
        fail "$1: coord.launch says '$(grep '^gen' "$2/coord.launch")', not 'gen $3'"
}
# if_any NAME DIR PROGRAM ARGS: mpiexec.mpich -n N mpcr exec --restart-if-any DIR
# PROGRAM ARGS, in the foreground; must end with the native status
if_any() {
    local name=$1 dir=$2 rc
    shift 2
    mpiexec.mpich -n "$n" "$MPCR" exec --restart-if-any "$dir" "$@" >"$scratch/$name.out" 2>"$scratch/$name.err"
    rc=$?
    [ "$rc" = "$ref_rc" ] || fail "$name: the job ended with status $rc, the native run with $ref_rc"
}

# several generations
D=$scratch/several
mpiexec.mpich -n "$n" "$MPCR" exec --restart-if-any "$D" --keep 3 "$@" \
    >"$scratch/first.out" 2>"$scratch/first.err" &
job=$!
wait_connected "$job" "$n" "$D" 60
launched_gen "first run" "$D" 0
sleep 0.3
"$MPCR" checkpoint "$D" >"$scratch/ckpt1.out" 2>"$scratch/ckpt1.err" || fail "mpcr checkpoint $D failed"
[ -f "$D/gen-1/manifest" ] || fail "no complete gen-1 after mpcr checkpoint"
not_at_hold "$D" 1 "mpcr checkpoint"
sleep 0.3
"$MPCR" checkpoint --exit "$D" >"$scratch/ckpt2.out" 2>"$scratch/ckpt2.err" ||
    fail "mpcr checkpoint --exit $D failed"
wait "$job"
rc=$?
job=
[ "$rc" = 0 ] || fail "the checkpointed job ended with status $rc, not 0"
[ -f "$D/gen-1/manifest" ] && [ -f "$D/gen-2/manifest" ] || fail "gen-1 and gen-2 are not both complete"
not_at_hold "$D" 2 "mpcr checkpoint --exit"
touch "$scratch/release"
cp -r "$D/gen-2" "$D/gen-3" && rm "$D/gen-3/manifest" || fail "cannot make an incomplete gen-3"
# partial: gen-2's images as gen-1 of another directory, without the manifest
P=$scratch/partial
mkdir "$P" && cp -r "$D/gen-2" "$P/gen-1" && rm "$P/gen-1/manifest" || fail "cannot make $P"

if_any second "$D" "$@"
launched_gen "several generations" "$D" 2
same_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out"
echo "several: checkpointed at $(wc -l <"$scratch/first.out") lines (gen-2), resumed from gen-2 (gen-1 and an incomplete gen-3 beside it)"

if_any partial "$P" "$@"
launched_gen "only an incomplete generation" "$P" 0
same_output "$scratch/ref" "$scratch/partial.out"
echo "partial: started fresh"

E=$scratch/empty
mkdir "$E"
if_any empty "$E" "$@"
launched_gen "an empty directory" "$E" 0
same_output "$scratch/ref" "$scratch/empty.out"
echo "empty: started fresh"
echo "PASS: $(wc -l <"$scratch/want") lines each time"
