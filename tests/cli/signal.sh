#!/usr/bin/env bash
# Checkpoints asked for by signals (`--exit-signal`, `--checkpoint-signal`;
# docs/batch-systems.md "Signals"), against the uninterrupted native run
# (mpiexec.mpich) of the same program:
#   signal.sh LAUNCH KIND NPROCS PROGRAM ARGS...
# LAUNCH: where the job runs and who gets the signal
#   run       `mpcr run -n N --ckpt-dir D`; the signal goes to mpcr run
#   exec      `mpiexec.mpich -n N mpcr exec --ckpt-dir D`; the signal goes
#             to every process of the job below hydra's (proxies,
#             programs, rank 0's coordinator), as Slurm's `scancel
#             --signal` delivers it: one request, however many processes
#             tell it
#   launcher  the same job; the signal goes to mpiexec.mpich, which passes
#             it on to the ranks
# KIND: exit      the signal is sent at a random instant once every rank
#                 has connected (0.2 s to 0.6 W, W the native run's time),
#                 and the checkpoint must find the job at work, not
#                 waiting at its final hold (tests/batch/common.sh
#                 not_at_hold);
#                 the job must end with status 0 and a complete gen-1;
#                 the restart (`mpcr restart D`, or `mpiexec.mpich -n N
#                 mpcr exec --restart D`) runs to the end: the two pieces'
#                 output is the native run's, the restart's status its.
#       continue  the same instant and check; the job goes on and must end as the
#                 native run did, output and status, with exactly one
#                 generation, gen-1, complete; a restart from it must end
#                 with the native status and print the native run's last
#                 lines (what was printed after the cut).
# Environment: MPCR (the mpcr binary); SIGNAL_OPTS (options of mpcr
# run/exec, e.g. "--exit-signal TERM"); SIGNAL (what is sent: USR1 for
# exit, USR2 for continue, the defaults); CKPT_SEED (the random instant's
# seed, printed); KEEP (keep the scratch directory).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
launch=$1 kind=$2 n=$3
shift 3
case $kind in
exit) sig=${SIGNAL:-USR1} ;;
continue) sig=${SIGNAL:-USR2} ;;
*) echo "usage: signal.sh run|exec|launcher exit|continue NPROCS PROGRAM ARGS..."; exit 2 ;;
esac
. "$(dirname "$0")/common.sh" signal
seed=${CKPT_SEED:-$RANDOM}
RANDOM=$seed
echo "seed $seed (CKPT_SEED=$seed repeats it)"

. "$(dirname "$0")/../native_run.sh"
native_run "$scratch/ref" "$scratch/ref.err" "$n" "$@"
ref_rc=$?
wall_ms=$native_ms
[ -s "$scratch/ref" ] || fail "the native run printed nothing (status $ref_rc)"
hold_jobs # the jobs under mpcr wait before their final report until the checkpoint is taken

D=$scratch/ck
# $SIGNAL_OPTS is split on purpose: several options
# shellcheck disable=SC2086
case $launch in
run) "$MPCR" run -n "$n" --ckpt-dir "$D" ${SIGNAL_OPTS:-} "$@" >"$scratch/first.out" 2>"$scratch/first.err" & ;;
exec | launcher)
    mpiexec.mpich -n "$n" "$MPCR" exec --ckpt-dir "$D" ${SIGNAL_OPTS:-} "$@" \
        >"$scratch/first.out" 2>"$scratch/first.err" & ;;
*) fail "no launch $launch" ;;
esac
job=$!
wait_connected "$job" "$n" "$D" 60
delay_ms=$((200 + RANDOM % (wall_ms * 6 / 10 > 200 ? wall_ms * 6 / 10 - 200 : 1)))
sleep "$((delay_ms / 1000)).$(printf %03d $((delay_ms % 1000)))"

case $launch in
run | launcher) targets=$job ;;
exec) targets=$(descendants "$job") ;;
esac
lines_before=$(wc -l <"$scratch/first.out")
# shellcheck disable=SC2086
kill -s "$sig" $targets || fail "could not send SIG$sig to $targets"
echo "SIG$sig after $delay_ms ms to $(wc -w <<<"$targets") process(es), $lines_before lines printed"
# The hold is released once the checkpoint is complete (or the job has
# ended), and only after the check that rank 0 was not waiting there at the
# cut: a checkpoint at the job's end would pass the rest of this test.
for ((i = 0; i < 600; i++)); do
    grep -q "checkpoint .*/gen-1 complete" "$scratch/first.err" && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
done
[ -f "$D/gen-1/manifest" ] && not_at_hold "$D" 1 "SIG$sig"
# what the job had printed by the cut, at the latest (its lines pass through
# the launcher's forwarding, hence the margin, as in tests/ckpt/ckpt.sh)
sleep 0.2
lines_after=$(wc -l <"$scratch/first.out")
touch "$scratch/release"
wait "$job"
rc=$?
job=
[ -f "$D/gen-1/manifest" ] || fail "no complete gen-1 after SIG$sig"
grep -q "checkpoint .*/gen-1 complete (SIG$sig)" "$scratch/first.err" ||
    fail "the coordinator did not say that SIG$sig's checkpoint is complete"
if [ "$kind" = exit ]; then
    [ "$rc" = 0 ] || fail "the job ended with status $rc after SIG$sig, not 0"
    [ "$(wc -l <"$scratch/first.out")" -lt "$(wc -l <"$scratch/ref")" ] ||
        fail "the job printed all its output: it ended before the checkpoint"
    case $launch in
    run) "$MPCR" restart "$D" >"$scratch/second.out" 2>"$scratch/second.err" ;;
    *) mpiexec.mpich -n "$n" "$MPCR" exec --restart "$D" >"$scratch/second.out" 2>"$scratch/second.err" ;;
    esac
    rc=$?
    [ "$rc" = "$ref_rc" ] || fail "the restarted job ended with status $rc, the native run with $ref_rc"
    same_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out"
    echo "PASS: SIG$sig: checkpointed and ended at $(wc -l <"$scratch/first.out") lines, restarted to the end ($(wc -l <"$scratch/want") lines)"
    exit 0
fi
[ "$rc" = "$ref_rc" ] || fail "the job ended with status $rc after SIG$sig, the native run with $ref_rc"
gens=$(cd "$D" && echo gen-*)
[ "$gens" = gen-1 ] || fail "one signal, one checkpoint: found $gens"
same_output "$scratch/ref" "$scratch/first.out"
case $launch in
run) "$MPCR" restart "$D" >"$scratch/second.out" 2>"$scratch/second.err" ;;
*) mpiexec.mpich -n "$n" "$MPCR" exec --restart "$D" >"$scratch/second.out" 2>"$scratch/second.err" ;;
esac
rc=$?
[ "$rc" = "$ref_rc" ] || fail "the restart from gen-1 ended with status $rc, the native run with $ref_rc"
tail -n "$(wc -l <"$scratch/second.out")" "$scratch/ref" >"$scratch/ref_tail"
cmp -s "$scratch/ref_tail" "$scratch/second.out" ||
    fail "the restart from gen-1 printed lines that are not the native run's last ones: $(diff "$scratch/ref_tail" "$scratch/second.out" | head -5)"
# The cut came after the signal and before the checkpoint was complete: the
# job had printed lines_before to lines_after lines then.
cut=$(($(wc -l <"$scratch/ref") - $(wc -l <"$scratch/second.out")))
[ "$cut" -ge "$lines_before" ] && [ "$cut" -le "$lines_after" ] ||
    fail "the restart printed the native run's lines after line $cut, but the job had printed $lines_before lines when SIG$sig came and $lines_after once its checkpoint was complete"
echo "PASS: SIG$sig: the job went on to the end; restarted from gen-1, it printed the native run's last $(wc -l <"$scratch/second.out") lines"
