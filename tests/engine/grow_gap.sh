#!/usr/bin/env bash
# A checkpoint between the proxy's reply to GROW (the memfd extended) and
# the library's mremap of the larger staging area: with MPCR_FAULT=grow-gap
# each rank's first GROW waits in that gap until restarted (src/lib/runtime/staging.c).
# Once every rank has said so, `mpcr checkpoint --exit`, then `mpcr restart`:
# the restarted ranks resume into the mremap, and the job must end as the
# native run (mpiexec.mpich) does: same exit status, same lines (sorted).
#   grow_gap.sh MPCR PROGRAM NPROCS ARGS...   (PROGRAM: tests/ckpt's ckpt_big)
set -u
mpcr=$1 prog=$2 n=$3
shift 3
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_job.sh"
test_init grow_gap
job_init "$prog"

timeout -k 10 300 mpiexec.mpich -n "$n" "$T/prog" "$@" </dev/null >"$T/ref.out" 2>"$T/ref.err"
ref_rc=$?
grep -q . "$T/ref.out" || fail "the native run printed nothing (status $ref_rc)"

MPCR_FAULT=grow-gap MPCR_EXPECT_MPI=1 timeout -k 10 300 "$mpcr" run -n "$n" --ckpt-dir "$D" "$T/prog" "$@" \
    </dev/null >"$T/out0" 2>"$T/err0" &
job=$!
for _ in $(seq 1200); do
    [ "$(grep -c 'fault grow-gap' "$T/err0")" -ge "$n" ] && break
    kill -0 $job 2>/dev/null || fail "the job ended before its ranks reached the gap"
    sleep 0.05
done
[ "$(grep -c 'fault grow-gap' "$T/err0")" -ge "$n" ] || fail "the ranks did not all reach the gap within 60 s"
checkpoint_exit "$mpcr" $job
echo "checkpoint --exit with $n ranks between GROW and mremap: $(tail -1 "$T/err-ck")"

timeout -k 10 300 "$mpcr" restart "$D" </dev/null >"$T/out1" 2>"$T/err1"
rc=$?
leftovers "the restart"
[ $rc = "$ref_rc" ] || fail "the restart ended with status $rc, native $ref_rc"
diff <(sort "$T/ref.out") <(cat "$T/out0" "$T/out1" | sort) >"$T/diff" ||
    { head -20 "$T/diff"; fail "the output differs from the native run's (< native, > mpcr)"; }
echo "grow_gap: PASS (status $rc, $(wc -l <"$T/ref.out") lines as natively)"
