#!/usr/bin/env bash
# A communicator creation that a checkpoint finds half entered, one member
# never quiescing: rank 1's proxy is held before it serves the program's
# MPI_Comm_dup (its 3rd call, after a hello and MPI_Init; MPCR_TEST_PROXY_STALL, src/proxy/serve.c),
# rank 0 has entered the creation and is quiesced, waiting for rank 1's
# "entered" message. The checkpoint fails at the coordinator's limit (rank 1
# not at a safe point), and rank 0, quiesced for 10 s by then, has said
# which creation it is inside and which member it has not heard from
# (creation_report_waiting, src/proxy/creation.c): a checkpoint timed out
# inside a creation can then be told apart from a real call that never
# returns. The job goes on and ends as the native run does.
#   late_member.sh PROGRAM ARGS...   (a program whose 3rd call at the proxy
#   is MPI_Comm_dup of MPI_COMM_WORLD; MPCR names the mpcr binary)
set -u
name=late_member
. "$(dirname "$0")/coord_common.sh"
prog=$1
shift
late_job 3 16 13 "$prog" "$@"
echo "$msg" | grep -q "ranks not at a safe point: 1; rank 1's proxy: serving the program's call COMM_DUP" ||
    fail "the failure does not name rank 1, serving MPI_Comm_dup, as late: $msg"
grep -q "rank 0: quiesced for 10 s inside COMM_DUP making communicator [0-9]* from 0; no \"entered\" message yet from ranks: 1$" "$T/run.err" ||
    fail "rank 0 did not say that it waits for rank 1 to enter the duplicate: $(cat "$T/run.err")"
late_job_end
echo "late_member: PASS ($(grep "rank 0: quiesced" "$T/run.err"))"
