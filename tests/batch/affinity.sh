#!/usr/bin/env bash
# Threads' CPU affinity across a restart under another binding (issue 15,
# the launcher's binding; docs/batch-systems.md, docs/engine.md "CPU affinity"),
# against the uninterrupted native run (mpiexec.mpich) of the same program:
#   affinity.sh NPROCS PROGRAM ITERATIONS UNITS THREADS   (tests/ckpt/ckpt_affinity.c)
# `mpcr run -n N --ckpt-dir D` under FIRST_CPUS (`taskset -c FIRST_CPUS`;
# unset or empty: unbound, every CPU this test may use), `mpcr checkpoint
# --exit D` while it works, then `mpcr restart D` under RESTART_CPUS
# (likewise). With PIN=C, worker 0 of every rank binds itself to CPU C
# (PROGRAM's PIN_CPU) before MPI_Init.
# The rule (src/engine/threads.c): an affinity equal to the one the run was
# launched with is the launcher's binding, and the restarted thread keeps
# the restart's; one the program set itself is set again. So:
#   - in the first run (once every rank is connected), every thread of
#     every program process runs on FIRST_CPUS, the pinned one on C;
#   - after the restart (at the program's final hold: every thread still
#     there), every thread runs on RESTART_CPUS, the pinned one still on C
#     (read from /proc/PID/task/*/status, so threads mpcr's library may
#     have count too);
#   - the program's report, each thread's own sched_getaffinity read after
#     the restart, says the same (main, w0.. masks), and the output of both
#     pieces equals the native run's, made under `taskset -c RESTART_CPUS`
#     (the pinned thread binds itself there too: taskset narrows a task's
#     mask, not its cpuset, so a thread may widen or move its own; only a
#     cpuset (cgroup) limits it: a mask is cut to the cpuset's CPUs, and
#     one with none of them is refused, EINVAL: measured with a cpuset of
#     CPU 1, {0} refused, {0,1} made {1});
#   - the restart ends with the native status, no process of the jobs left.
# Skipped (77) where this test may not use CPUs 0 and 1.
# Environment: MPCR (the mpcr binary), FIRST_CPUS, RESTART_CPUS, PIN (above).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1 prog=$2 threads=$5
shift 2
first_cpus=${FIRST_CPUS:-} restart_cpus=${RESTART_CPUS:-} pin=${PIN:-}
taskset -c 0,1 true 2>/dev/null ||
    { echo "SKIP: CPUs 0 and 1 are not both usable here ($(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status))" && exit 77; }

# under LIST: the words before a command that bind it to LIST (none if LIST
# is empty), in $under (taskset execs the command: $! stays its pid).
under() { under=(); [ -z "$1" ] || under=(taskset -c "$1"); }
# cpus LIST: the kernel's spelling of LIST (every CPU this test may use if empty).
cpus() { under "$1" && "${under[@]}" grep '^Cpus_allowed_list:' /proc/self/status | cut -f2; }
# mask LIST: LIST ("0-1", "1", "0,2-3") as the program prints it (%016x, bit C for CPU C).
mask() {
    local m=0 part lo hi c
    for part in ${1//,/ }; do
        lo=${part%-*} hi=${part#*-}
        for ((c = lo; c <= hi; c++)); do m=$((m | 1 << c)); done
    done
    printf '%016x' "$m"
}
want_first=$(cpus "$first_cpus") want_restart=$(cpus "$restart_cpus") want_pin=${pin:+$(cpus "$pin")}
pin_arg=() want_pinned=0
[ -n "$pin" ] && pin_arg=("$pin") want_pinned=1

. "$(dirname "$0")/common.sh"
# the reference: under the restart's binding, where the program's report ends
under "$restart_cpus"
batch_start affinity "$n" "${under[@]}" "$prog" "$@" "${pin_arg[@]}"
echo "affinity: first run on CPUs $want_first, restart on $want_restart${pin:+, worker 0 pinned to $want_pin}"

# check_threads WHO PID WANT: every thread of the job's programs (below PID:
# the proxies' children) runs on WANT, the one named aff-pinned on PIN's;
# each program has its THREADS workers, one of them pinned with PIN.
check_threads() {
    local p prog task name got progs=0 workers pinned tasks
    for p in $(descendants "$2"); do
        case $(cat "/proc/$p/comm" 2>/dev/null) in mpcr-proxy*) ;; *) continue ;; esac
        prog=$(pgrep -P "$p" | head -1)
        [ -n "$prog" ] || fail "$1: proxy $p has no program"
        progs=$((progs + 1)) workers=0 pinned=0 tasks=0
        for task in /proc/"$prog"/task/*; do
            name=$(cat "$task/comm" 2>/dev/null) || continue # ended meanwhile (none of the program's)
            got=$(awk '/^Cpus_allowed_list:/ {print $2}' "$task/status" 2>/dev/null)
            tasks=$((tasks + 1))
            case $name in
            aff-pinned)
                pinned=$((pinned + 1)) workers=$((workers + 1))
                [ "$got" = "$want_pin" ] ||
                    fail "$1: the pinned thread ${task##*/} of program $prog runs on CPUs $got, not $want_pin (the CPU it bound itself to)"
                ;;
            *)
                [ "$name" = aff-work ] && workers=$((workers + 1))
                [ "$got" = "$3" ] ||
                    fail "$1: thread ${task##*/} ($name) of program $prog runs on CPUs $got, not $3 (the launch binding)"
                ;;
            esac
        done
        [ "$workers" = "$threads" ] || fail "$1: program $prog has $workers workers, not $threads"
        [ "$pinned" = "$want_pinned" ] || fail "$1: program $prog has $pinned pinned threads, not $want_pinned"
        echo "$1: program $prog: $tasks threads, as expected"
    done
    [ "$progs" = "$n" ] || fail "$1: found $progs programs below proxies, not $n"
}

under "$first_cpus"
"${under[@]}" "$MPCR" run -n "$n" --ckpt-dir "$scratch/ck" "$prog" "$@" "${pin_arg[@]}" \
    >"$scratch/first.out" 2>"$scratch/first.err" &
job=$!
wait_connected "$job" "$n" "$scratch/ck" 60
check_threads "the first run" "$job" "$want_first"
checkpoint_exit "$job" "$n" "$scratch/ck" 60
job=

rm -f "$scratch/release" "$scratch/release.reached" # held again: the threads are checked there
under "$restart_cpus"
"${under[@]}" "$MPCR" restart "$scratch/ck" >"$scratch/second.out" 2>"$scratch/second.err" &
job=$!
reach_hold "$job" "the restarted job"
check_threads "the restart" "$job" "$want_restart"
touch "$scratch/release"
wait "$job"
rc=$?
job=
[ "$rc" = "$ref_rc" ] || fail "the restarted job ended with status $rc, the native run with $ref_rc"

# every rank's report, read by each thread after the restart
main_mask=$(mask "$want_restart") w0_mask=$(mask "${want_pin:-$want_restart}")
for ((r = 0; r < n; r++)); do
    line=$(grep "^affinity rank $r:" "$scratch/second.out") || fail "the restart printed no report of rank $r"
    for ((t = 0; t < threads; t++)); do
        w=$main_mask
        [ "$t" = 0 ] && w=$w0_mask
        [[ $line == *" w$t=$w"* ]] || fail "rank $r's worker $t reports the wrong affinity (want $w): $line"
    done
    [[ $line == *" main=$main_mask "* ]] || fail "rank $r's main thread reports the wrong affinity (want $main_mask): $line"
done
same_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out"
echo "PASS: $(wc -l <"$scratch/want") lines, checkpointed at $(wc -l <"$scratch/first.out"), restarted to the end"
