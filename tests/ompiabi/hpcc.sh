#!/usr/bin/env bash
# Debian's HPC Challenge (`hpcc`, built for Open MPI) unmodified under mpcr
# (issue 38, point 5): every section (HPL, DGEMM, STREAM, PTRANS,
# RandomAccess, FFT, latency and bandwidth) on 2 ranks, against
# `mpirun.openmpi -n 2 hpcc` run without interruption. HPCC writes its
# results to hpccoutf.txt; its Summary section's values are compared, but for
# those that are timings or rates (names with time, flops, GUPs, GB, usec,
# STREAM): the residuals, error counts, sizes and machine constants must be
# the native run's, and the file must have the same outline (its sections in
# order, every residual check and error count: nothing written twice or lost
# across a restart).
#   hpcc.sh HPCCINF     (MPCR: the mpcr binary; CKPT_SEED: the seed of the
#                        random cuts, printed)
# The job runs on MPICH's proxy, is checkpointed as it goes on (`mpcr
# checkpoint`) when one section begins and stopped (`--exit`) when a later
# one begins, both sections picked at random, and restarted on Open MPI's.
set -u
inf=$(realpath "$1")
. "$(dirname "$0")/app_common.sh"

# The sections after the first, in the order HPCC runs them: a cut is asked
# when one begins. Not HPL, the last: with this input it is short, and beside
# two busy loops the job had called MPI_Finalize before the cut asked at its
# start was taken ("the job is ending").
sections=(StarRandomAccess SingleRandomAccess MPIRandomAccess_LCG StarRandomAccess_LCG SingleRandomAccess_LCG
    PTRANS StarDGEMM SingleDGEMM StarSTREAM SingleSTREAM MPIFFT StarFFT SingleFFT LatencyBandwidth)
results() { # the Summary's values that are not timings or rates
    sed -n '/^Begin of Summary section/,/^End of Summary section/p' "$1" |
        grep -vE '^[A-Za-z_0-9]*(_time|Time|[Ff]lops|GUPs|GBs|GBytes|usec|STREAM_)[A-Za-z_0-9]*='
}
# The file's outline: section marks, residual checks and error counts, each line's words
# with its numbers as N (timings differ; what a section printed, and how often, may not).
# Not PTRANS's "CPU ..." lines: PTRANS prints one only when the CPU time it measured is
# positive, and a restart in the middle of its measure makes it negative (a restarted
# process's CPU clocks start again from 0: docs/engine.md, "CPU clocks"); its "WALL" lines,
# with the same residual check, stay.
shape() {
    grep -E '^(Begin|End) of|PASSED|FAILED|errors in|tests completed|^Node\(s\) with error' "$1" |
        grep -v '^CPU ' |
        awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) $i = "N"; print }'
}

mkdir "$T/native" "$T/mpcr"
cp "$inf" "$T/native/hpccinf.txt"
cp "$inf" "$T/mpcr/hpccinf.txt"
cd "$T/native" || exit 1
timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 hpcc </dev/null >out 2>err || {
    fail "the native run failed"
    head err
    exit 1
}
results hpccoutf.txt >"$T/want"
grep -q '^Success=1$' "$T/want" || fail "the native run did not succeed: $(grep -m1 '^Success' "$T/want")"
[ "$(wc -l <"$T/want")" -gt 100 ] || fail "only $(wc -l <"$T/want") values in the native run's summary"

cd "$T/mpcr" || exit 1
out=$T/mpcr/hpccoutf.txt
cuts=
# cut SECTION [--exit]: a checkpoint once SECTION has begun, while the job works.
cut() {
    local s=$1
    shift
    for _ in $(seq 6000); do
        grep -q "^Begin of $s section" "$out" 2>/dev/null && break
        grep -q '^End of HPC Challenge tests' "$out" 2>/dev/null && break
        sleep 0.02
    done
    grep -q "^Begin of $s section" "$out" || {
        fail "the job ended before section $s began: no checkpoint while it works"
        return 1
    }
    timeout 120 "$MPCR" checkpoint "$@" "$T/ck" 2>"$T/ckpt.err" || {
        fail "mpcr checkpoint $* in section $s: $(cat "$T/ckpt.err")"
        return 1
    }
    grep -q '^End of HPC Challenge tests' "$out" && fail "the checkpoint in section $s came after the job's end"
    cuts="$cuts $s${1:+ (exit)}"
}
timeout 300 "$MPCR" run --mpi mpich -n 2 --ckpt-dir "$T/ck" hpcc </dev/null >run.out 2>run.err &
pid=$!
first=$((RANDOM % (${#sections[@]} - 1)))
second=$((first + 1 + RANDOM % (${#sections[@]} - 1 - first)))
cut "${sections[$first]}" && cut "${sections[$second]}" --exit
wait $pid || fail "mpcr run: status $? after checkpoint --exit"
lines_at_cut=$(wc -l <"$out")
timeout 300 "$MPCR" restart --mpi openmpi "$T/ck" </dev/null >restart.out 2>restart.err ||
    fail "mpcr restart --mpi openmpi: status $?"
results "$out" >"$T/got"
if ! diff "$T/want" "$T/got" >"$T/diff"; then
    fail "results differ (< native, > mpcr; cuts in sections$cuts):"
    head -20 "$T/diff"
fi
if ! diff <(shape "$T/native/hpccoutf.txt") <(shape "$out") >"$T/diff"; then
    fail "hpccoutf.txt's outline differs (< native, > mpcr):"
    head -20 "$T/diff"
fi
[ $failed = 1 ] && tail -n 5 run.err restart.err
[ $failed = 0 ] && echo "ok: $(wc -l <"$T/got") summary values and $(shape "$out" | wc -l) lines of outline as natively;" \
    "cuts in sections$cuts ($lines_at_cut lines before), restarted on Open MPI's proxy"
exit $failed
