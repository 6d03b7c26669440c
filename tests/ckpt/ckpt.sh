#!/usr/bin/env bash
# Checkpoint and restart of whole MPI jobs, against an uninterrupted native
# run (mpiexec.mpich) of the same program: its output and exit status are
# the reference.
#   ckpt.sh MODE NPROCS PROGRAM ARGS...
# MODE:
#   exit-restart C  C cycles of: `mpcr run` (first) or `mpcr restart` (then)
#                   in the background, `mpcr checkpoint --exit` at a random
#                   instant after its start (0.2 s to 0.7 W/C, W the native
#                   run's time: the C delays fit in 70% of it), the job
#                   ends (status 0); then `mpcr restart` runs to the end.
#                   Every one of the C checkpoints must be taken: a job
#                   that ends before one fails the test. The outputs of all
#                   pieces, concatenated, must equal the reference (sorted
#                   lines), the last piece's exit status the reference's.
#   continue C      one `mpcr run` with C `mpcr checkpoint` (the job goes
#                   on), each 0.2 s to 0.7 W/C after the previous one; all
#                   C must be taken. Output and status must equal the
#                   reference's. Then `mpcr restart` from the last generation.
#   cycles C        C cycles of: `mpcr checkpoint` (the job goes on), then
#                   `mpcr checkpoint --exit` and `mpcr restart`, each at a
#                   random instant (0.2 s to 0.35 W/C after the previous
#                   step); every checkpoint must be taken. The outputs of
#                   all pieces, concatenated, must equal the reference, the
#                   last piece's exit status the reference's. CKPT_CYCLES
#                   in the environment replaces C (tests/ckpt/cycles.sh
#                   scales the program's work with it).
#   interval        `mpcr run --interval 1 --keep 2`: output and status
#                   equal the reference's; the newest 2 complete generations (and those they refer to: increments)
#                   (manifest present) are left, and no incomplete one.
#                   Then `mpcr restart` from the newest.
#   refuse          a `checkpoint --exit` (0.2 s to 0.3 W); then `mpcr
#                   restart` must fail, with a message, within 60 s,
#                   leaving no process, for: a different -n (the message
#                   must name the job's rank count), rank-1.img missing, a
#                   byte in the middle of rank-1.img flipped (both on copies
#                   of the directory). Finally `mpcr restart -n NPROCS` of
#                   the intact directory must finish the job (outputs of
#                   both pieces equal the reference).
# Every checkpoint that succeeds must have made a new gen-K with a manifest
# and rank-R.img for every rank.
# A restart from a generation taken while the job went on (continue,
# interval) must end with the reference's exit status, and print exactly
# the reference's lines after the first L, where L is what the checkpointed
# run had printed at the cut (the programs print from rank 0 only, see
# ckpt.h): L is bounded by the lines in the run's output before the request
# and 0.2 s after the answer (continue), or when gen-(K-1) and gen-K were
# complete (interval: its output's length is sampled every 50 ms).
# The hold: a job under mpcr (not the native one) runs with CKPT_HOLD=PATH
# (except in interval mode), so rank 0 of a program of ckpt.h waits before
# its final report until this script creates PATH, after the mode's last
# checkpoint: a job that runs faster than the native run predicted (an idle
# or fast machine) cannot end before its checkpoints. A checkpoint taken
# while rank 0 waits there is noted "at the job's end"; if every checkpoint
# of the test was, the test fails (the program is too short to test
# anything but its end: give it more work). With CKPT_MIDWAY=PATH too, a
# program that calls midway_for_harness has rank 0 wait half-way until the
# first checkpoint is complete (PATH is created after every checkpoint): one
# checkpoint at least lands while the job works ("half-way" in its note).
# After every job: no process of it is left (pgrep: the program's path or
# name, the scratch directory).
# The proxies count what they did for the checkpoints (MPCR_PROXY_STATS,
# docs/mpi-checkpoint.md): messages drained into a cache, blocking calls
# abandoned for re-issue, receives reposted. Their sums over every job of
# the test are printed; each name in CKPT_REQUIRE (e.g. "drained
# reposted") must be above zero: the path the test exists to exercise was
# taken. In exit-restart mode, up to CYCLES extra cycles are made while one
# is still zero and the job still works (random cuts can all miss a state
# that lasts a few milliseconds: one CI run's four did).
# Environment: MPCR (the mpcr binary), CKPT_REQUIRE (above),
# CKPT_NATIVE_ARGS (the native run's ARGS instead: a variant of the program
# that computes the same results in a way the native MPI can run),
# CKPT_RESTART_ARGS (more options of `mpcr restart`, e.g. "--mpi
# openmpi"), CKPT_RUN_ARGS (more options of `mpcr run`), CKPT_SEED (the seed of the random
# delays; printed, so that a failing sequence can be repeated), KEEP (keep
# the scratch directory), MPCR_CKPT_TIMEOUT (the coordinator's limit on a
# checkpoint's stages; 30 s here unless set: an attempt that meets a rank
# inside MPI_Comm_dup/split waits for it, then fails, and is retried).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
export MPCR_CKPT_TIMEOUT=${MPCR_CKPT_TIMEOUT:-30}
ck_timeout=$((${MPCR_CKPT_TIMEOUT%.*} * 3 + 60)) # for `mpcr checkpoint` itself
usage="usage: ckpt.sh exit-restart|continue|cycles CYCLES | interval | refuse  NPROCS PROGRAM ARGS..."
mode=${1:?$usage}
shift
cycles=0
case $mode in
exit-restart | continue) cycles=${1:?$usage} && shift ;;
cycles) cycles=${CKPT_CYCLES:-${1:?$usage}} && shift ;;
interval | refuse) ;;
*) echo "$usage" >&2 && exit 2 ;;
esac
n=${1:?$usage} prog=${2:?$usage}
shift 2
[ -x "$prog" ] || { echo "ckpt.sh: $prog is not an executable" >&2 && exit 2; }
name=$(basename "$prog")
for w in ${CKPT_REQUIRE:-}; do
    case $w in drained | abandoned | reposted) ;; *)
        echo "ckpt.sh: CKPT_REQUIRE names '$w', which is not a count (drained, abandoned, reposted)" >&2 && exit 2 ;;
    esac
done


T=$(mktemp -d "/tmp/mpcr-ckpt-$name.XXXXXX")
D=$T/ck # the checkpoint directory
mkdir "$T/stats"
export CKPT_SCRATCH=$T # marks the processes of this test's jobs (job_pids)
export MPCR_PROXY_STATS=$T/stats/proxy # every proxy of every job: proxy.rank-R.pid-P
job=    # the background job (its `timeout` wrapper), if any
poller= # interval: the loop that follows the job's output
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

seed=${CKPT_SEED:-$(((RANDOM << 15 | RANDOM) ^ $$))}
RANDOM=$seed
label=$mode
[ "$cycles" = 0 ] || label="$mode $cycles"
echo "ckpt.sh $label $n $name $*: seed $seed (CKPT_SEED=$seed repeats the delays)"

# ---- helpers

fail() {
    echo "FAIL ($name, $mode, CKPT_SEED=$seed): $*"
    for f in "$T"/*.err; do
        [ -s "$f" ] && echo "--- $(basename "$f") (last lines)" && tail -n 15 "$f"
    done
    exit 1
}

cleanup() {
    [ -n "$poller" ] && kill "$poller" 2>/dev/null
    if [ -n "$job" ] && kill -0 "$job" 2>/dev/null; then
        kill -TERM "$job" 2>/dev/null # timeout passes it on to the job's process group
        for _ in $(seq 40); do
            kill -0 "$job" 2>/dev/null || break
            sleep 0.25
        done
        kill -KILL "$job" 2>/dev/null
    fi
    local left
    left=$(job_pids)
    # shellcheck disable=SC2086
    [ -z "$left" ] || kill -KILL $left 2>/dev/null
    if [ -n "${KEEP:-}" ]; then echo "scratch directory kept: $T"; else rm -rf "$T"; fi
}

# Processes of this test's jobs: those whose environment holds
# CKPT_SCRATCH=$T (exported at the start, so every process this script
# starts has it, and a restored program shows its first run's environment); not this
# script, its subshells and its ancestors (ctest, a timeout), nor zombies.
# Not by the program's name: other tests (of other build trees) run the
# same programs on the same machine, and their processes are not ours to
# kill.
ancestors=" $(p=$$; while [ "${p:-1}" -gt 1 ]; do
    printf '%s ' "$p"
    p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
done)"
job_pids() {
    local p found
    # grep without the mark, and all of them found before ps runs: the
    # helpers this function starts are not the job's.
    found=$(env -u CKPT_SCRATCH grep -lzxF -- "CKPT_SCRATCH=$T" /proc/[0-9]*/environ 2>/dev/null)
    for p in $found; do
        p=${p#/proc/} p=${p%/environ}
        case $ancestors in *" $p "*) continue ;; esac
        cmp -s "/proc/$p/cmdline" "/proc/$$/cmdline" && continue # this script's subshells
        case $(ps -o stat= -p "$p" 2>/dev/null) in Z* | "") continue ;; esac
        echo "$p"
    done
}

# leftovers WHAT: fails if processes of the job are still there 10 s on.
leftovers() {
    local left
    for _ in $(seq 40); do
        left=$(job_pids)
        [ -z "$left" ] && return 0
        sleep 0.25
    done
    echo "processes left behind:"
    # shellcheck disable=SC2086
    ps -o pid,ppid,stat,cmd -p $left
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null
    fail "$1: processes of the job were left behind (killed now)"
}

now_ms() { date +%s%3N; }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
# rand_ms LO HI: uniform in [LO, HI] (from $RANDOM: the seed decides).
rand_ms() { echo $(($1 + ((RANDOM << 15) | RANDOM) % ($2 - $1 + 1))); }
max() { echo $(($1 > $2 ? $1 : $2)); }

# start NAME CMD...: CMD in the background (stdout NAME.out, stderr NAME.err), under a timeout.
start() {
    local what=$1
    shift
    timeout -k 10 "$job_timeout" "$@" </dev/null >"$T/$what.out" 2>"$T/$what.err" &
    job=$!
}

# finish WHAT: waits for the background job; its status in rc.
finish() {
    wait "$job"
    rc=$?
    job=
    case $rc in 124 | 137) fail "$1: the job did not end within $job_timeout s (killed)" ;; esac
}

# newest_gen: the number of the newest gen-K in $D (0 if none).
newest_gen() {
    local g
    g=$(find "$D" -maxdepth 1 -name 'gen-*' 2>/dev/null | sed 's/.*gen-//' | grep -x '[0-9]*' | sort -n | tail -1)
    echo "${g:-0}"
}

# check_gen K: gen-K has a manifest and one image per rank.
check_gen() {
    local g=$D/gen-$1
    [ -f "$g/manifest" ] || fail "gen-$1 has no manifest after the checkpoint succeeded (it holds: $(find "$g" -mindepth 1 -printf '%f ' 2>&1))"
    for r in $(seq 0 $((n - 1))); do
        [ -s "$g/rank-$r.img" ] || fail "gen-$1 has no rank-$r.img after the checkpoint succeeded"
    done
}

# checkpoint [--exit]: takes a checkpoint of the background job; 0 if
# taken (the new generation checked; its number in gen), 1 if the job
# ended first. A refused attempt (the job has not finished MPI_Init yet, or
# is finalizing) is repeated every 0.25 s, 120 times at most; any other
# failure fails the test. With $watch
# set (the job's output file), sets ck_lo and ck_hi: its lines before the
# successful request, and 0.2 s after the answer; the cut was between.
checkpoint() {
    local before tries=0 ck_rc
    before=$(newest_gen)
    while :; do
        tries=$((tries + 1))
        [ -n "${watch:-}" ] && ck_lo=$(wc -l <"$watch")
        timeout -k 10 "$ck_timeout" "$MPCR" checkpoint "$@" "$D" >"$T/checkpoint.out" 2>"$T/checkpoint.err"
        ck_rc=$?
        [ $ck_rc = 0 ] && break
        case $ck_rc in 124 | 137) fail "mpcr checkpoint $* did not answer within $ck_timeout s" ;; esac
        [ $tries = 1 ] && cp "$T/checkpoint.err" "$T/checkpoint.first.err"
        kill -0 "$job" 2>/dev/null || return 1 # the job has ended (it may be why the checkpoint failed)
        # Only a refusal is repeated; a checkpoint that failed otherwise (timed out
        # in the drain, an image not written) is a failure of mpcr.
        grep -qE "try again|the job is ending|ended during the checkpoint|ended before the checkpoint|nothing is running" "$T/checkpoint.err" ||
            fail "mpcr checkpoint $* failed while the job ran: $(cat "$T/checkpoint.err")"
        [ $tries -ge 120 ] && fail "mpcr checkpoint $* failed $tries times while the job ran: $(cat "$T/checkpoint.err")"
        sleep 0.25
    done
    [ -n "${watch:-}" ] && sleep 0.2 && ck_hi=$(wc -l <"$watch")
    gen=$(newest_gen)
    [ "$gen" -gt "$before" ] || fail "mpcr checkpoint $* succeeded but made no new generation (newest: gen-$gen)"
    check_gen "$gen"
    ck_note=
    [ $tries -gt 1 ] && ck_note=" (at try $tries; the first said: $(head -1 "$T/checkpoint.first.err"))"
    checkpoints=$((checkpoints + 1))
    if [ -n "$hold" ] && [ -e "$hold.reached" ]; then
        held=$((held + 1)) ck_note="$ck_note (at the job's end: rank 0 waited for the test)"
    elif [ -n "$midway" ] && [ -e "$midway.reached" ] && [ ! -e "$midway" ]; then
        ck_note="$ck_note (half-way: rank 0 waited for the test)"
    fi
    [ -n "$midway" ] && touch "$midway"
    return 0
}

# release: lets the job past the hold (see the top); fails if every
# checkpoint so far was taken at the job's end.
release() {
    [ -n "$hold" ] || return 0
    touch "$hold"
    [ "$checkpoints" -gt 0 ] && [ "$held" = "$checkpoints" ] &&
        fail "all $checkpoints checkpoints were taken at the job's end, none while it worked: the program is too short for this machine (native run $(secs "$ref_ms") s); give it more work"
    return 0
}

# proxy_sums: the proxies' counts summed over the test's jobs so far.
proxy_sums() {
    cat "$T"/stats/proxy.* 2>/dev/null | awk '
        { for (i = 3; i < NF; i += 2) sum[$i] += $(i + 1) }
        END { printf "drained %d abandoned %d reposted %d", sum["drained"], sum["abandoned"], sum["reposted"] }'
}

# missing_count: prints the first count named in CKPT_REQUIRE (checked at
# the start) that is still zero; nothing if none.
missing_count() {
    local sums w
    sums=$(proxy_sums)
    for w in ${CKPT_REQUIRE:-}; do
        echo "$sums" | awk -v w="$w" '{ for (i = 1; i < NF; i += 2) if ($i == w && $(i + 1) == 0) f = 1 }
            END { exit !f }' && echo "$w" && return 0
    done
}

# check_counts: prints the proxies' counts summed over the test's jobs;
# fails if a count named in CKPT_REQUIRE is zero.
check_counts() {
    local sums
    sums=$(proxy_sums)
    echo "proxy counts, summed over $(find "$T/stats" -type f | wc -l) proxies that counted: $sums"
    case $(missing_count) in
    drained) fail "no proxy drained a message into its cache: no checkpoint met a message in flight, the path this test exists for ($sums)" ;;
    abandoned) fail "no proxy abandoned a blocking call: no checkpoint met a rank waiting in MPI, the path this test exists for ($sums)" ;;
    reposted) fail "no proxy reposted a receive: no checkpoint met a pending receive, the path this test exists for ($sums)" ;;
    esac
}

# not_taken WHAT DELAY: the job ended (status $rc) before checkpoint WHAT,
# DELAY ms after the previous step: the test fails, a checkpoint not taken
# proves nothing.
not_taken() {
    local said=
    [ -s "$T/checkpoint.err" ] && said="; mpcr checkpoint said: $(head -1 "$T/checkpoint.err")"
    fail "$1 was not taken: the job ended first (status $rc; asked $(secs "$2") s in; the native run took $(secs "$ref_ms") s$said)"
}

# pause SEP: sleeps a random delay (0.2 s to $dmax ms, in $delay), noted in
# $delays after SEP.
pause() {
    delay=$(rand_ms 200 "$dmax")
    delays="$delays$1$(secs "$delay")"
    sleep "$(secs "$delay")"
}

# compare WHAT OUTPUT RC: status and sorted lines equal the reference's.
compare() {
    [ "$3" = "$ref_rc" ] || fail "$1: exit status $3, native $ref_rc"
    if ! diff <(sort "$T/ref.out") <(sort "$2") >"$T/diff"; then
        echo "$1: output differs from the native run's (sorted; < native, > mpcr):"
        head -40 "$T/diff"
        fail "$1: output differs"
    fi
}

result_re='^[a-z_]+ rank [0-9]+:'

# compare_suffix WHAT OUTPUT RC LO HI: the exit status is the reference's,
# and the output is the reference's without its first L lines, for some L
# in [LO, HI] (the lines the checkpointed run had printed at the cut).
compare_suffix() {
    local what=$1 out=$2 total lines
    [ "$3" = "$ref_rc" ] || fail "$what: exit status $3, native $ref_rc"
    total=$(wc -l <"$T/ref.out") lines=$(wc -l <"$out")
    if ! tail -n "$lines" "$T/ref.out" | cmp -s - "$out"; then
        echo "$what: its output is not the end of the native run's (< native's last $lines lines, > restart):"
        diff <(tail -n "$lines" "$T/ref.out") "$out" | head -40
        fail "$what: output differs"
    fi
    { [ $((total - lines)) -ge "$4" ] && [ $((total - lines)) -le "$5" ]; } ||
        fail "$what: printed the native run's last $lines of $total lines; the checkpointed run had printed $4 to $5 lines at the cut, so $((total - $5)) to $((total - $4)) were due"
    echo "$what: exit status $3, output = the native run's last $lines of $total lines ($(grep -cE "$result_re" "$out") result lines; the cut was after $4 to $5 lines)"
}

# ---- the reference

native_args=("$@")
[ -n "${CKPT_NATIVE_ARGS:-}" ] && read -ra native_args <<<"$CKPT_NATIVE_ARGS"
# (beside this script where a test copied both, as unprivileged.sh does)
native_lib=$(dirname "$0")/../native_run.sh
[ -f "$native_lib" ] || native_lib=$(dirname "$0")/native_run.sh
. "$native_lib"
native_run "$T/ref.out" "$T/ref.err" "$n" "$prog" "${native_args[@]}"
ref_rc=$?
ref_ms=$native_ms
case $ref_rc in 124 | 137) fail "the native run (mpiexec.mpich) did not end within 300 s" ;; esac
[ -s "$T/ref.out" ] || fail "the native run printed nothing: nothing to compare"
grep -qE "$result_re" "$T/ref.out" || fail "the native run printed no result line ('NAME rank R: ...')"
# A job's time limit, from the native run's W: under mpcr a rank is two
# processes (program and proxy) that hand every call over, so on a node
# with more runnable processes than cores each hand-over waits for a core.
# Measured for ckpt_big on 2 cores at load 12-22: 8 to 10 times W, steadily
# progressing; 30 W leaves room for a load that grows after the native run.
job_timeout=$((60 + 30 * (ref_ms / 1000 + 1)))
echo "native run: exit status $ref_rc, $(wc -l <"$T/ref.out") lines, $(secs "$ref_ms") s$native_kept"
leftovers "the native run"

# ---- the modes

hold= midway= checkpoints=0 held=0
[ "$mode" = interval ] || { hold=$T/release && export CKPT_HOLD=$hold; }
# The midway hold (ckpt.h midway_for_harness, in the programs that call it):
# rank 0 waits half-way until the first checkpoint is complete, so that one
# at least lands while the job works, however much faster than its native
# reference the job runs under mpcr (Open MPI's proxy ran ckpt_p2p_mixed in
# a third of mpirun.openmpi's time: both checkpoints came at its end).
[ "$mode" = interval ] || { midway=$T/midway && export CKPT_MIDWAY=$midway; }

# Restarts from gen-$1 to the end; its output must be the reference's after
# its first L lines, $2 <= L <= $3.
restart_suffix() {
    timeout -k 10 "$job_timeout" "$MPCR" restart ${CKPT_RESTART_ARGS:-} "$D" </dev/null >"$T/restart.out" 2>"$T/restart.err"
    rc=$?
    case $rc in 124 | 137) fail "the restart from gen-$1 did not end within $job_timeout s" ;; esac
    leftovers "the restart from gen-$1"
    compare_suffix "the restart from gen-$1" "$T/restart.out" "$rc" "$2" "$3"
    check_counts
    echo "ckpt.sh: PASS"
}

case $mode in
exit-restart)
    # Delays: up to 0.7 W/C each, so that all C fit in one run even when a
    # piece under mpcr runs faster than the native run did (a load that
    # eased); mpcr is slower than native otherwise.
    dmax=$(max $((ref_ms * 7 / (10 * cycles))) 300)
    piece=0 delays=''
    MPCR_EXPECT_MPI=1 start piece0 "$MPCR" run ${CKPT_RUN_ARGS:-} -n "$n" --ckpt-dir "$D" "$prog" "$@"
    # After the C cycles, up to C more while a count CKPT_REQUIRE names is
    # still zero (random cuts can all miss a short-lived state) and the job
    # is still working (not held at its end).
    c=0
    while c=$((c + 1)) && { [ "$c" -le "$cycles" ] ||
        { [ "$c" -le $((cycles * 2)) ] && [ "$held" = 0 ] && [ -n "$(missing_count)" ]; }; }; do
        [ "$c" -gt "$cycles" ] && echo "cycle $c: an extra cycle, no checkpoint has made a proxy count '$(missing_count)' yet"
        pause " "
        if checkpoint --exit; then
            finish "cycle $c"
            [ "$rc" = 0 ] || fail "cycle $c: the job exited with status $rc after checkpoint --exit (expected 0)"
            echo "cycle $c: checkpoint --exit after $(secs "$delay") s: gen-$gen$ck_note"
            leftovers "cycle $c (after checkpoint --exit)"
            piece=$c
            start "piece$piece" "$MPCR" restart ${CKPT_RESTART_ARGS:-} "$D"
        else
            finish "cycle $c"
            not_taken "checkpoint --exit $c of $cycles" "$delay"
        fi
    done
    release
    finish "the last restart"
    leftovers "the last piece"
    for p in $(seq 0 "$piece"); do cat "$T/piece$p.out"; done >"$T/all.out"
    compare "$piece checkpoint/exit/restart cycles" "$T/all.out" "$rc"
    check_counts
    echo "ckpt.sh: PASS ($piece of $piece cycles checkpointed, delays$delays s; output and status equal the native run's)"
    ;;

continue)
    dmax=$(max $((ref_ms * 7 / (10 * cycles))) 300)
    taken=0 delays='' watch=$T/run.out
    MPCR_EXPECT_MPI=1 start run "$MPCR" run ${CKPT_RUN_ARGS:-} -n "$n" --ckpt-dir "$D" "$prog" "$@"
    for c in $(seq "$cycles"); do
        pause " "
        if checkpoint; then
            taken=$((taken + 1)) lo=$ck_lo hi=$ck_hi
            # The ranks go on while forked copies write their images (docs/mpi-checkpoint.md).
            grep -q "forked copies wrote the images" "$T/checkpoint.err" ||
                fail "checkpoint $c: the ranks waited for their images (no forked copies): $(cat "$T/checkpoint.err")"
            echo "checkpoint $c after $(secs "$delay") s: gen-$gen (cut after $lo to $hi lines)$ck_note"
        else
            finish "the checkpointed run"
            not_taken "checkpoint $c of $cycles" "$delay"
        fi
    done
    release
    finish "the checkpointed run"
    leftovers "the checkpointed run"
    compare "the run with $taken checkpoints" "$T/run.out" "$rc"
    echo "the run with $taken checkpoints (delays$delays s): output and status equal the native run's"
    restart_suffix "$gen" "$lo" "$hi"
    ;;

cycles)
    dmax=$(max $((ref_ms * 7 / (20 * cycles))) 300)
    piece=0 delays=''
    MPCR_EXPECT_MPI=1 start piece0 "$MPCR" run ${CKPT_RUN_ARGS:-} -n "$n" --ckpt-dir "$D" "$prog" "$@"
    for c in $(seq "$cycles"); do
        pause " "
        checkpoint || { finish "cycle $c"; not_taken "checkpoint (continue) of cycle $c of $cycles" "$delay"; }
        grep -q "forked copies wrote the images" "$T/checkpoint.err" ||
            fail "cycle $c: the ranks waited for their images (no forked copies): $(cat "$T/checkpoint.err")"
        pause +
        checkpoint --exit || { finish "cycle $c"; not_taken "checkpoint --exit of cycle $c of $cycles" "$delay"; }
        finish "cycle $c"
        [ "$rc" = 0 ] || fail "cycle $c: the job exited with status $rc after checkpoint --exit (expected 0)"
        leftovers "cycle $c (after checkpoint --exit)"
        piece=$c
        start "piece$piece" "$MPCR" restart ${CKPT_RESTART_ARGS:-} "$D"
    done
    release
    finish "the last restart"
    leftovers "the last piece"
    for p in $(seq 0 "$piece"); do cat "$T/piece$p.out"; done >"$T/all.out"
    compare "$cycles cycles of checkpoint, checkpoint --exit and restart" "$T/all.out" "$rc"
    check_counts
    echo "ckpt.sh: PASS ($cycles of $cycles cycles, $((2 * cycles)) checkpoints, newest gen-$gen, delays$delays s; output and status equal the native run's)"
    ;;

interval)
    MPCR_EXPECT_MPI=1 start run "$MPCR" run ${CKPT_RUN_ARGS:-} -n "$n" --ckpt-dir "$D" --interval 1 --keep 2 "$prog" "$@"
    # Its lines over time: "MS_BEFORE LINES MS_AFTER" every 50 ms.
    (while kill -0 "$job" 2>/dev/null; do
        echo "$(now_ms) $(wc -l <"$T/run.out") $(now_ms)"
        sleep 0.05
    done) >"$T/lines.log" &
    poller=$!
    finish "the run with --interval 1"
    wait "$poller"
    leftovers "the run with --interval 1"
    compare "the run with --interval 1 --keep 2" "$T/run.out" "$rc"
    gens=$(find "$D" -maxdepth 1 -name 'gen-*' -printf '%f\n' | sort -t- -k2n | paste -sd' ')
    complete=$(find "$D" -maxdepth 2 -path '*/gen-*/manifest' | wc -l)
    [ "$complete" -ge 2 ] || fail "--interval 1: $complete complete generations ($gens), expected 2"
    # the newest 2, and the generations they refer to (increments: docs/incremental.md)
    "$(dirname "$0")/../engine/kept_ok.py" "$D" 2 >/dev/null 2>"$T/kept.err" || fail "$(cat "$T/kept.err") ($gens)"
    [ "$(echo "$gens" | wc -w)" = "$complete" ] || fail "an incomplete generation was left behind ($gens)"
    gen=$(newest_gen)
    check_gen "$gen"
    [ "$gen" -ge 3 ] || echo "note: only $gen interval checkpoints: --keep pruned none"
    echo "--interval 1 --keep 2: $gen generations taken, $gens kept"
    # The cut of gen-K came after gen-(K-1) was complete (the run takes one
    # generation after the other) and before gen-K was: the lines printed
    # before the one and 0.2 s after the other bound those printed at the cut.
    prev=$(find "$D" -maxdepth 1 -name 'gen-*' -printf '%f\n' | sed 's/gen-//' | sort -n | tail -2 | head -1)
    m_prev=$(stat -c %.3Y "$D/gen-$prev/manifest" | tr -d .) m_gen=$(stat -c %.3Y "$D/gen-$gen/manifest" | tr -d .)
    lo=$(awk -v m="$m_prev" '$3 <= m { l = $2 } END { print l + 0 }' "$T/lines.log")
    hi=$(awk -v m="$m_gen" -v t="$(wc -l <"$T/run.out")" '$1 >= m + 200 { print $2; f = 1; exit } END { if (!f) print t }' "$T/lines.log")
    restart_suffix "$gen" "$lo" "$hi"
    ;;

refuse)
    [ "$n" -ge 2 ] || fail "refuse needs 2 ranks or more (it damages rank-1.img)"
    MPCR_EXPECT_MPI=1 start piece0 "$MPCR" run ${CKPT_RUN_ARGS:-} -n "$n" --ckpt-dir "$D" "$prog" "$@"
    delay=$(rand_ms 200 "$(max $((ref_ms * 3 / 10)) 300)")
    sleep "$(secs "$delay")"
    checkpoint --exit || fail "the job ended before the checkpoint (after $(secs "$delay") s)"
    finish "the checkpointed run"
    [ "$rc" = 0 ] || fail "the job exited with status $rc after checkpoint --exit (expected 0)"
    leftovers "the checkpointed run"
    echo "checkpoint --exit after $(secs "$delay") s: gen-$gen$ck_note"
    # Damaged copies (the coordinator's socket, if left, is not copied).
    for copy in missing flipped; do
        mkdir "$T/$copy"
        for f in "$D"/*; do [ -S "$f" ] || cp -a "$f" "$T/$copy/" || fail "cannot copy $f"; done
    done
    rm "$T/missing/gen-$gen/rank-1.img"
    img=$T/flipped/gen-$gen/rank-1.img
    size=$(stat -c %s "$img")
    off=$((size / 2))
    byte=$(od -An -tu1 -j "$off" -N1 "$img" | tr -d ' ')
    printf '%b' "\\0$(printf %03o $((byte ^ 255)))" | dd of="$img" bs=1 seek="$off" count=1 conv=notrunc status=none
    [ "$(cmp -l "$D/gen-$gen/rank-1.img" "$img" | wc -l)" = 1 ] || fail "could not flip byte $off of rank-1.img"

    # refused WHAT CMD...: CMD must fail, with a message, within 60 s, leaving nothing.
    refused() {
        local what=$1
        shift
        timeout -k 10 60 "$@" </dev/null >"$T/refused.out" 2>"$T/refused.err"
        local r=$?
        case $r in
        0) fail "$what: mpcr restart succeeded (status 0)" ;;
        124 | 137) fail "$what: mpcr restart did not end within 60 s" ;;
        esac
        [ -s "$T/refused.err" ] || fail "$what: mpcr restart failed (status $r) without a message"
        leftovers "$what"
        echo "$what: refused, status $r: $(head -3 "$T/refused.err" | tr '\n' ' ')"
    }
    other=$((n + 1))
    refused "restart -n $other" "$MPCR" restart -n "$other" "$D"
    { grep -qiE 'rank|process|-n' "$T/refused.err" && grep -qw "$n" "$T/refused.err"; } ||
        fail "restart -n $other: the message does not name the job's $n ranks: $(cat "$T/refused.err")"
    refused "rank-1.img missing" "$MPCR" restart "$T/missing"
    refused "byte $off of $size of rank-1.img flipped" "$MPCR" restart "$T/flipped"
    # The intact directory still restarts, and the job ends as natively.
    touch "$hold"
    start piece1 "$MPCR" restart -n "$n" "$D"
    finish "the restart of the intact directory"
    leftovers "the restart of the intact directory"
    cat "$T/piece0.out" "$T/piece1.out" >"$T/all.out"
    compare "checkpoint --exit and restart -n $n" "$T/all.out" "$rc"
    check_counts
    echo "ckpt.sh: PASS (3 restarts refused; the intact checkpoint restarts and ends as the native run)"
    ;;
esac
