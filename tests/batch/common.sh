# Shared by the batch tests (sourced): they define fail() and $scratch, or
# have batch_start define them.

# batch_start TAG NPROCS PROGRAM ARGS...: how most batch tests begin: a
# scratch directory in $scratch (removed at exit unless KEEP is set),
# fail() (the scratch's *.err tails, then $job stopped), the uninterrupted
# native run's output in $scratch/ref and its status in $ref_rc, and the
# harness's hold for the runs under mpcr (hold_jobs).
batch_start() {
    local tag=$1 n=$2
    shift 2
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-$tag-XXXXXX")
    job=
    fail() {
        echo "FAIL: $*"
        for f in "$scratch"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
        [ -n "$job" ] && kill "$job" 2>/dev/null
        exit 1
    }
    trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
    . "$(dirname "${BASH_SOURCE[0]}")/../native_run.sh"
    native_run "$scratch/ref" "$scratch/ref.err" "$n" "$@"
    ref_rc=$?
    [ -s "$scratch/ref" ] || fail "the native run printed nothing (status $ref_rc)"
    hold_jobs
}

# wait_connected PID NRANKS DIR SECONDS: waits until every rank of the job
# whose launching process is PID has connected to DIR's coordinator.
wait_connected() {
    local i
    for ((i = 0; i < $4 * 10; i++)); do
        "$MPCR" status "$3" 2>/dev/null | grep -q "connected $2 " && return 0
        kill -0 "$1" 2>/dev/null || fail "the job ended before all its ranks reached the coordinator"
        sleep 0.1
    done
    fail "the ranks did not all reach the coordinator in $4 s"
}

# hold_jobs: the jobs started from now on wait before their final report
# (tests/ckpt/ckpt.h, CKPT_HOLD) until checkpoint_exit has taken its
# checkpoint: on a fast machine they cannot end first. Rank 0 also waits
# half-way (CKPT_MIDWAY, programs that call midway_for_harness) until
# release_midway or the final release: a checkpoint passed on by Slurm's
# daemons or a launcher came seconds late on two busy cores, after 2000,
# 3000 and 4000 laps of the ring alike; it now lands in the middle of the
# job at the latest.
hold_jobs() {
    export CKPT_HOLD=$scratch/release
    export CKPT_MIDWAY=$scratch/midway
}

# release_midway: the jobs held half-way (hold_jobs) go on.
release_midway() { touch "$scratch/midway"; }

# passed_through WHO PROGRAM: every rank of the job under way has what PASSED
# (NAME=VALUE) says, as its launcher was told (-genv, -x, srun --export;
# a binding to one CPU: -bind-to core, --bind-to core, --cpu-bind=cores):
# NAME=VALUE in its proxy's environment (the launcher's process) and in its
# program's (PROGRAM, as the job was started with it), the proxy bound to
# fewer CPUs than this test may use and to others than the other ranks', its
# program to the same CPUs. mpcr neither eats nor alters the launcher's
# options. The proxies are found by the hold in their environment
# (hold_jobs): under Slurm they are slurmstepd's.
passed_through() {
    local try
    for ((try = 0; try < 20; try++)); do
        passed_through_once "$1" "$2" && return 0
        sleep 0.2
    done
    fail "$1: for 4 s, $unsettled"
}

# One look (passed_through): 1, with `unsettled` saying why, where a process
# listed could not be read whole (twice in CI runs a proxy's binding read
# as nothing, "its proxy's binding is ?", its program's being readable: a
# process of the job before, ending, or one changing) or a proxy's program
# is not in place yet; a wrong value fails.
#
# A proxy's program is its child whose command line is PROGRAM's, not just
# any child: rank 0's proxy has rank 0's coordinator as its first child
# (`mpcr exec` forks it, then becomes the proxy), and every proxy reaches
# the coordinator (what wait_connected waits for) before it forks the
# program, so a look may find the proxy's own copy before its execve, or,
# at a restart, mpcr-restore, whose environment reads as nothing while it
# replaces its memory (from the unmapping of its own stack to
# prctl(PR_SET_MM_MAP), src/restore/restore.c): taken for the program, that
# was "the restart: program P lacks NAME=VALUE in its environment" in a
# clean-clone run. A process's command line and environment change together
# (execve; PR_SET_MM_MAP sets both): once the command line is PROGRAM's, the
# environment is the program's (at a restart, its image's).
passed_through_once() {
    local p t k prog kids seen=" " cpus prog_cpus all_cpus
    local -a list argv
    # Builtins only, one pgrep: on two busy cores each fork of this shell
    # waited 0.1-0.2 s, and the checks outlasted the job they looked at.
    allowed_cpus self all_cpus
    for p in $(pgrep -f 'mpcr-proxy-'); do
        has_env "$p" "CKPT_HOLD=$scratch/release" || continue
        prog= kids=
        for t in /proc/"$p"/task/*; do # the thread that forked a child lists it
            list=()
            read -r -a list 2>/dev/null <"$t/children"
            for k in "${list[@]}"; do
                kids="$kids $k"
                argv=()
                mapfile -d '' -n 1 argv 2>/dev/null <"/proc/$k/cmdline"
                [ "${argv[0]:-}" = "$2" ] && prog=$k
            done
        done
        if [ -z "$prog" ]; then
            unsettled="proxy $p has no child running $2 yet (being started or restored); its children:
$(ps -o pid=,stat=,args= -p "${kids# }" 2>/dev/null | cut -c1-160)" # (a fork only here: rare)
            return 1
        fi
        allowed_cpus "$p" cpus
        allowed_cpus "$prog" prog_cpus
        if [ "$cpus" = "?" ] || [ "$prog_cpus" = "?" ]; then
            unsettled="the binding of proxy $p ($cpus) or of its program $prog ($prog_cpus) could not be read:
$(ps -o pid=,ppid=,stat=,args= -p "$p,$prog" 2>/dev/null | cut -c1-160)" # (a fork only here: rare)
            return 1
        fi
        has_env "$p" "$PASSED" || fail "$1: proxy $p lacks $PASSED in its environment"
        has_env "$prog" "$PASSED" || fail "$1: program $prog lacks $PASSED in its environment"
        [ "$cpus" != "$all_cpus" ] || fail "$1: proxy $p may run on every CPU ($cpus): not bound"
        [ "$prog_cpus" = "$cpus" ] || fail "$1: program $prog runs on CPUs $prog_cpus, its proxy's binding is $cpus"
        [[ $seen == *" $cpus "* ]] && fail "$1: two ranks bound to CPU $cpus"
        seen="$seen$cpus "
    done
    [ "$(wc -w <<<"$seen")" = "$n" ] || fail "$1: found $(wc -w <<<"$seen") proxies, not $n"
}

# has_env PID NAME=VALUE: PID's environment holds NAME=VALUE (builtins only).
has_env() {
    local -a env
    mapfile -d '' env 2>/dev/null <"/proc/$1/environ" || return 1
    local e
    for e in "${env[@]}"; do [ "$e" = "$2" ] && return 0; done
    return 1
}

# allowed_cpus PID VAR: VAR= the CPUs PID may run on (Cpus_allowed_list;
# builtins only: no command substitution, which forks).
allowed_cpus() {
    local key value
    printf -v "$2" '%s' "?"
    while read -r key value; do
        [ "$key" = "Cpus_allowed_list:" ] && { printf -v "$2" '%s' "$value"; return; }
    done <"/proc/$1/status"
}

# wait_complete DIR GLOB PID WHAT: waits (60 s at most) until a generation
# DIR/GLOB (e.g. gen-*) has its manifest while the job of PID runs.
wait_complete() {
    local i
    for ((i = 0; i < 600; i++)); do
        compgen -G "$1/$2/manifest" >/dev/null && return 0
        kill -0 "$3" 2>/dev/null || fail "the job ended before $4"
        sleep 0.1
    done
    fail "no $4 within 60 s"
}

# newest_complete DIR: the number of DIR's newest generation with its manifest.
newest_complete() {
    (cd "$1" && for g in gen-*; do [ -f "$g/manifest" ] && echo "${g#gen-}"; done | sort -n | tail -1)
}

# resumed_output REF FIRST SECOND: a job killed after a periodic checkpoint
# and resumed from it: FIRST (printed before the kill) must be the beginning
# of REF (the native output), SECOND (after the resume) its end, and the two
# must cover it (the lines between the checkpoint and the kill come twice).
resumed_output() {
    local first second all
    first=$(wc -l <"$2") second=$(wc -l <"$3") all=$(wc -l <"$1")
    head -n "$first" "$1" | cmp -s - "$2" ||
        fail "the first run printed what the native run did not: $(head -n "$first" "$1" | diff - "$2" | head -5)"
    tail -n "$second" "$1" | cmp -s - "$3" ||
        fail "the resumed job printed lines that are not the native run's last ones: $(tail -n "$second" "$1" | diff - "$3" | head -5)"
    [ $((first + second)) -ge "$all" ] ||
        fail "lines are missing: $first before the kill, $second after the resume, $all natively"
}

# at_hold DIR GEN: true when DIR/gen-GEN's checkpoint was taken with rank 0
# already waiting at that hold (ckpt.h creates $scratch/release.reached when
# it gets there), i.e. at the job's end, not while it worked: the file
# exists and is not newer than the generation's manifest (a job that goes
# on after a checkpoint-and-continue reaches the hold later).
at_hold() {
    [ -e "$scratch/release.reached" ] && [ ! "$scratch/release.reached" -nt "$1/gen-$2/manifest" ]
}

# not_at_hold DIR GEN WHAT: fails when at_hold DIR GEN (as tests/ckpt/ckpt.sh
# does): a test whose checkpoint lands at the final hold shows nothing of a
# checkpoint of a running job.
not_at_hold() {
    at_hold "$1" "$2" &&
        fail "$3: gen-$2 was taken at the job's end (rank 0 waiting at its final hold, tests/ckpt/ckpt.h CKPT_HOLD), not while the job worked: the program is too short for this machine; give it more work"
    return 0
}

# reach_hold JOB WHAT: waits (at most 120 s) until rank 0 of job JOB waits
# at the hold; fails if the job ends first.
reach_hold() {
    local i
    for ((i = 0; i < 1200; i++)); do
        [ -e "$scratch/release.reached" ] && return 0
        kill -0 "$1" 2>/dev/null || fail "$2 ended before its rank 0 reached the final hold"
        sleep 0.1
    done
    fail "$2's rank 0 did not reach its final hold in 120 s"
}

# jobs_left: the processes of the jobs started since hold_jobs (their
# environment names $scratch/release) or naming $scratch on their command
# line, one "PID COMMAND" a line; this test's own shell excepted.
jobs_left() (
    unset CKPT_HOLD # what this runs must not be counted
    {
        pgrep -f "$scratch" | grep -vx "$$"
        for p in $(grep -lsF "CKPT_HOLD=$scratch/release" /proc/[0-9]*/environ); do
            p=${p#/proc/} p=${p%/environ}
            [ "$p" = "$$" ] || echo "$p"
        done
    } | sort -u | while read -r p; do
        [ -e "/proc/$p" ] && echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-200)"
    done
)

# no_jobs_left SECONDS WHAT: waits at most SECONDS for jobs_left to say
# nothing; fails otherwise.
no_jobs_left() {
    local i
    for ((i = 0; i < $1 * 10; i++)); do
        [ -z "$(jobs_left)" ] && return 0
        sleep 0.1
    done
    fail "$2: processes of the jobs are left: $(jobs_left)"
}

# checkpoint_exit PID NRANKS DIR SECONDS [COMMAND...]: once every rank of
# the job whose launching process is PID has connected to DIR's
# coordinator (waiting at most SECONDS), `mpcr checkpoint --exit DIR` (or
# COMMAND, which must end the job after a checkpoint: a signal); then
# waits for PID, which must end with status 0, and checks that DIR/gen-1
# is complete and was not taken at the job's final hold (not_at_hold).
checkpoint_exit() {
    local pid=$1 n=$2 dir=$3 rc r
    wait_connected "$pid" "$n" "$dir" "$4"
    shift 4
    [ $# -gt 0 ] || set -- "$MPCR" checkpoint --exit "$dir"
    sleep 0.3
    "$@" >"$scratch/ckpt.out" 2>"$scratch/ckpt.err" || fail "$* failed"
    wait "$pid"
    rc=$?
    [ "$rc" = 0 ] || fail "the checkpointed job ended with status $rc, not 0"
    [ -f "$dir/gen-1/manifest" ] || fail "no complete gen-1 after the checkpoint"
    for ((r = 0; r < n; r++)); do
        [ -f "$dir/gen-1/rank-$r.img" ] || fail "gen-1 lacks rank-$r.img"
    done
    not_at_hold "$dir" 1 "the checkpoint"
    release_midway
    touch "$scratch/release" # hold_jobs
}

# same_output WANT GOT...: the files GOT together hold WANT's lines (sorted:
# ranks print in any order); then no process of the jobs is left
# (jobs_left; the coordinators end once every rank has gone).
same_output() {
    local want=$1 i
    shift
    cat "$@" | sort >"$scratch/got"
    sort "$want" >"$scratch/want"
    cmp -s "$scratch/got" "$scratch/want" ||
        fail "output differs from the native run: $(diff "$scratch/want" "$scratch/got" | head -10)"
    no_jobs_left 10 "after the jobs' end"
}

# descendants PID: every process below PID, one a line, hydra's own
# (hydra_pmi_proxy, mpiexec) excepted: the proxies, programs and rank 0's
# coordinator of a job under mpiexec.mpich, which `scancel --signal` would
# signal.
descendants() {
    local p
    for p in $(pgrep -P "$1"); do
        case $(cat /proc/$p/comm 2>/dev/null) in hydra_* | mpiexec*) ;; *) echo "$p" ;; esac
        descendants "$p"
    done
}
