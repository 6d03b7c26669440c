#!/usr/bin/env bash
# A rank whose proxy cannot reach a safe point (its MPI thread held, as
# inside a real MPI call that does not return): `mpcr checkpoint` fails
# after the coordinator's limit, and its message names the rank and says
# what its proxy was doing, as the proxy's reader thread answered the
# coordinator's "where K" (docs/mpi-checkpoint.md). The job goes on and
# ends with the native run's output and status. Deterministic: rank 1's
# proxy sleeps before serving the program's 2nd call
# (MPCR_TEST_PROXY_STALL, src/proxy/serve.c), longer than the limit.
#   late_rank.sh PROGRAM ARGS...   (MPCR names the mpcr binary)
set -u
name=late_rank
. "$(dirname "$0")/coord_common.sh"
prog=$1
shift
late_job 2 10 3 "$prog" "$@"
echo "$msg" | grep -q "timed out after 3 s in the quiesce stage; ranks not at a safe point: 1;" ||
    fail "the failure does not name rank 1 as late: $msg"
echo "$msg" | grep -q "rank 1's proxy: serving the program's call [A-Z_]* (stage running)" ||
    fail "the failure does not say what rank 1's proxy was doing: $msg"
late_job_end
echo "late_rank: PASS ($msg)"
