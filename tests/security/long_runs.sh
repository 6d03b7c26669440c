#!/usr/bin/env bash
# Long runs (issue 13, point 11), by hand, not in the test suite; the
# results go to docs/reliability.md.
#  1. One process (SEC_WAIT one ONE_SECONDS) through CONTINUE
#     checkpoint-and-continue in a row with --keep 2, every one while it
#     runs (it ends ONE_SECONDS after its start; the part fails if it ends
#     first), then to its end: its output and status those of the same
#     program run beside it without mpcr; the coordinator's and the
#     program's resident memory and open descriptors after the 10th and
#     the last.
#  2. One process through CYCLES --exit/restart cycles at random instants
#     (0-300 ms after each restart), then run to its end: the same output;
#     the restarted coordinator's (mpcr restart) and the restored
#     program's memory and descriptors just before the --exit of cycle 2,
#     10, 50 and the last (once the restored program runs: at most 1 s
#     later than the random instant).
#  3. An MPI job (NRANKS ranks, the ring of tests/ckpt, RING3 its arguments)
#     through MPI_CONTINUE checkpoint-and-continue in a row with --keep 2:
#     the coordinator's, each proxy's and each rank's resident memory and
#     descriptors after the 10th, 100th, 250th, 500th, 750th and the last;
#     2 complete generations and nothing else kept; then the job runs to
#     its end, its output and status the native run's.
#  4. An MPI job (NRANKS ranks, RING4: long enough that most cuts fall in
#     the computation, not at the hold; counted) through MPI_CYCLES
#     --exit/restart cycles, each --exit at a random instant (200 to CYCLE_MS ms after the
#     restart began; repeated every 0.25 s while the restarted job is not
#     ready; the figures are those of the last try), then restarted to its end: the pieces' outputs, one after the
#     other, are the native run's; the restarted coordinator's and proxies'
#     memory and descriptors and the generation's size just before the
#     --exit of cycle 2, 10, 50 and the last.
#  5. An MPI job of NRANKS5 ranks (default 32, on however few cores; the
#     ring, RING5) checkpointed with --exit at a random instant once every
#     rank has connected, then restarted to its end: the two pieces' output
#     is the native run's, the restart's status its; the checkpoint's own
#     report (size, stop, drain, images) and each piece's time are printed.
#  The MPI jobs hold before their final report (CKPT_HOLD, tests/ckpt/ckpt.h)
#  until the checkpoints are done, so that none ends first; the checkpoints
#  taken while a job waited there are counted ("at the hold").
#   long_runs.sh SEC_WAIT RING [CONTINUE=1000] [CYCLES=100] [MPI_CONTINUE=1000] [NRANKS=2] [MPI_CYCLES=100]
#   env: MPCR; KEEP; PARTS (the parts to run, default "1 2 3 4 5"); ONE_SECONDS (default
#   240); RING3, RING4, RING5 (the ring's ITERATIONS UNITS, default "20000 2", "30000 2",
#   "60 1"); NRANKS5; CYCLE_MS (default 2500); SEED (part 4's delays)
set -u
name=long_runs
. "$(dirname "$0")/common.sh"
# KEEP=1: the scratch directory stays (the jobs' outputs and errors, the generations)
[ -n "${KEEP:-}" ] && trap 'for p in $pids; do kill "$p" 2>/dev/null; done; echo "kept: $T"' EXIT
prog=$1 ring=$2 continues=${3:-1000} cycles=${4:-100} mpi_continues=${5:-1000} nranks=${6:-2}
mpi_cycles=${7:-100} parts=${PARTS:-1 2 3 4 5}
read -ra ring3 <<<"${RING3:-20000 2}"
read -ra ring4 <<<"${RING4:-30000 2}"
read -ra ring5 <<<"${RING5:-60 1}"
part() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
usage() { # PID: "RSS kB, N descriptors"
    echo "$(awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null) kB, $(ls "/proc/$1/fd" 2>/dev/null | wc -l) fds"
}
# COORDINATOR: "coordinator [...] PROGRAM [...]" (its children, by name)
single_figures() {
    local p out="coordinator [$(usage "$1")]"
    for p in $(pgrep -P "$1"); do out="$out $(cat "/proc/$p/comm" 2>/dev/null) [$(usage "$p")]"; done
    echo "$out"
}
prog_comm=$(basename "$prog" | cut -c1-15)

# 1
if part 1; then
one_s=${ONE_SECONDS:-240}
"$prog" one "$one_s" >"$T/one.ref" & # the same program without mpcr, beside it (it sleeps)
ref=$!
pids="$pids $ref"
"$MPCR" run --no-mpi --keep 2 --ckpt-dir "$T/c1" "$prog" one "$one_s" >"$T/one.out" 2>"$T/one.err" &
run=$!
pids="$pids $run"
wait_for -S "$T/c1/coord.sock" || fail "part 1 did not start"
start=$(date +%s)
for i in $(seq "$continues"); do
    if ! "$MPCR" checkpoint "$T/c1" 2>"$T/ck.err"; then
        [ -z "$(pgrep -P $run)" ] && fail "part 1: the program ended after $((i - 1)) checkpoints: ONE_SECONDS=$one_s is too short for $continues"
        fail "part 1: checkpoint $i failed: $(cat "$T/ck.err")"
    fi
    [ "$i" = 10 ] && at10=$(single_figures $run)
done
atend=$(single_figures $run)
[ -n "$(pgrep -P $run -x "$prog_comm")" ] || fail "part 1: the program was not running after the last checkpoint"
kept=$(ls -d "$T"/c1/gen-* | wc -l)
echo "part 1: $continues checkpoints in $(($(date +%s) - start)) s, all while the program ran; after the 10th: $at10; after the last: $atend; generations kept: $kept"
wait $run
rc=$?
[ $rc = 0 ] || fail "part 1: mpcr run ended with status $rc"
wait $ref
cmp -s "$T/one.ref" "$T/one.out" || fail "part 1: output $(cat "$T/one.out"), without mpcr $(cat "$T/one.ref")"
echo "part 1: the program ran to its end ($(($(date +%s) - start)) s after the first checkpoint), status 0; output as without mpcr: $(cat "$T/one.out")"
fi

# 2
if part 2; then
"$prog" two 30 >"$T/two.ref"
"$MPCR" run --no-mpi --ckpt-dir "$T/c2" "$prog" two 30 >"$T/two.out" 2>"$T/two.err" &
run=$!
sleep 0.3
"$MPCR" checkpoint --exit "$T/c2" 2>/dev/null || fail "part 2: the first --exit failed"
wait $run
start=$(date +%s)
for i in $(seq "$cycles"); do
    "$MPCR" restart "$T/c2" >>"$T/two.out" 2>"$T/r.err" &
    run=$!
    sleep "0.$(printf %03d $((RANDOM % 300)))"
    case $i in 2 | 10 | 50 | "$cycles")
        for _ in $(seq 20); do [ -n "$(pgrep -P $run -x "$prog_comm")" ] && break; sleep 0.05; done
        before=$(single_figures $run) ;;
    esac
    ok=0
    for _ in $(seq 40); do
        "$MPCR" checkpoint --exit "$T/c2" 2>"$T/ck.err" && { ok=1; break; }
        sleep 0.05
    done
    wait $run
    [ $ok = 1 ] || fail "part 2: cycle $i: no --exit checkpoint ($(cat "$T/ck.err"); $(cat "$T/r.err"))"
    case $i in 2 | 10 | 50 | "$cycles") echo "part 2: cycle $i ($(($(date +%s) - start)) s), before the --exit: $before" ;; esac
done
"$MPCR" restart "$T/c2" >>"$T/two.out" 2>"$T/r.err" || fail "part 2: the last restart failed"
cmp -s "$T/two.ref" "$T/two.out" || fail "part 2: output $(cat "$T/two.out"), natively $(cat "$T/two.ref")"
echo "part 2: $cycles --exit/restart cycles in $(($(date +%s) - start)) s; output as without: $(cat "$T/two.out")"
fi

# The MPI parts: what a job's processes hold, found by its checkpoint
# directory (in the proxies' environment; a restored program keeps its
# first run's).
proxies_of() { # CKPT_DIR
    local p
    for p in $(pgrep -f mpcr-proxy-mpich); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "MPCR_CKPT_DIR=$1" && echo "$p"
    done
}
ring_comm=$(basename "$ring" | cut -c1-15)
ranks_of() { # PROXY...: their programs (a forked image writer is the program's child, not the proxy's)
    local p
    for p in "$@"; do pgrep -P "$p" -x "$ring_comm"; done
}
# figures CKPT_DIR COORDINATOR: "coordinator [...] proxies [...] [...] ranks [...] [...]"
figures() {
    local px p out
    px=$(proxies_of "$1")
    out="coordinator [$(usage "$2")] proxies"
    for p in $px; do out="$out [$(usage "$p")]"; done
    out="$out ranks"
    # shellcheck disable=SC2086
    for p in $(ranks_of $px); do out="$out [$(usage "$p")]"; done
    echo "$out"
}
# complete_gens DIR: "N complete, M in all"
complete_gens() {
    echo "$(find "$1" -maxdepth 2 -path '*/gen-*/manifest' | wc -l) complete, $(find "$1" -maxdepth 1 -name 'gen-*' | wc -l) in all"
}
# same_output WHAT REF OUT
same_output() {
    cmp -s "$2" "$3" && return 0
    diff "$2" "$3" | head -20
    fail "$1: output differs from the native run's (above: < native, > mpcr)"
}

# 3
if part 3; then
start=$(date +%s)
mpiexec.mpich -n "$nranks" "$ring" "${ring3[@]}" >"$T/ring3.ref" 2>"$T/ring3.ref.err" || fail "part 3: the native run failed"
echo "part 3: native run of ${ring3[*]}: $(($(date +%s) - start)) s"
hold=$T/release3
CKPT_HOLD=$hold "$MPCR" run -n "$nranks" --keep 2 --ckpt-dir "$T/c3" "$ring" "${ring3[@]}" >"$T/ring3.out" 2>"$T/ring3.err" &
run=$!
pids="$pids $run"
start=$(date +%s)
done_ck=0 at_hold=0 refused=0
while [ $done_ck -lt "$mpi_continues" ]; do
    if ! timeout -k 5 300 "$MPCR" checkpoint "$T/c3" 2>"$T/ck.err"; then
        kill -0 $run 2>/dev/null || fail "part 3: the job ended after $done_ck checkpoints: $(tail -3 "$T/ring3.err")"
        grep -qE "try again|nothing is running" "$T/ck.err" || fail "part 3: checkpoint $((done_ck + 1)) failed: $(cat "$T/ck.err")"
        refused=$((refused + 1))
        [ $refused -gt 200 ] && fail "part 3: $refused checkpoints refused ($(cat "$T/ck.err"))"
        sleep 0.2
        continue
    fi
    done_ck=$((done_ck + 1))
    [ -e "$hold.reached" ] && at_hold=$((at_hold + 1))
    case $done_ck in 10 | 100 | 250 | 500 | 750 | "$mpi_continues")
        echo "part 3: after checkpoint $done_ck ($(($(date +%s) - start)) s, $at_hold at the hold; $(complete_gens "$T/c3")): $(figures "$T/c3" $run)" ;;
    esac
done
ls "$T/c3" >"$T/c3.list"
touch "$hold"
wait $run
rc=$?
[ $rc = 0 ] || fail "part 3: the job ended with status $rc after its checkpoints"
same_output "part 3" "$T/ring3.ref" "$T/ring3.out"
echo "part 3: $done_ck checkpoints of $nranks ranks in $(($(date +%s) - start)) s ($at_hold at the hold, $refused refused while starting); left in the directory: $(paste -sd' ' "$T/c3.list"); output and status as natively ($(grep -c . "$T/ring3.out") lines)"
fi

# 4
if part 4; then
start=$(date +%s)
mpiexec.mpich -n "$nranks" "$ring" "${ring4[@]}" >"$T/ring4.ref" 2>"$T/ring4.ref.err" || fail "part 4: the native run failed"
echo "part 4: native run of ${ring4[*]}: $(($(date +%s) - start)) s"
hold=$T/release4
cycle_ms=${CYCLE_MS:-2500}
seed=${SEED:-$$}
RANDOM=$seed
echo "part 4: SEED=$seed repeats the delays"
CKPT_HOLD=$hold "$MPCR" run -n "$nranks" --ckpt-dir "$T/c4" "$ring" "${ring4[@]}" >"$T/piece0.out" 2>"$T/piece0.err" &
run=$!
pids="$pids $run"
start=$(date +%s)
at_hold=0 retries=0
for c in $(seq "$mpi_cycles"); do
    sleep "$(awk -v ms=$((200 + RANDOM % (cycle_ms - 199))) 'BEGIN { printf "%.3f", ms / 1000 }')"
    ok=0
    for try in $(seq 240); do
        case $c in 2 | 10 | 50 | "$mpi_cycles") before=$(figures "$T/c4" $run) ;; esac
        if timeout -k 5 300 "$MPCR" checkpoint --exit "$T/c4" 2>"$T/ck.err"; then ok=1; break; fi
        kill -0 $run 2>/dev/null || fail "part 4: cycle $c: the job ended before its checkpoint --exit: $(tail -3 "$T/piece$((c - 1)).err")"
        grep -qE "try again|nothing is running" "$T/ck.err" || fail "part 4: cycle $c: checkpoint --exit failed: $(cat "$T/ck.err")"
        retries=$((retries + 1))
        sleep 0.25
    done
    [ $ok = 1 ] || fail "part 4: cycle $c: no checkpoint --exit in 60 s: $(cat "$T/ck.err")"
    [ -e "$hold.reached" ] && at_hold=$((at_hold + 1))
    wait $run
    rc=$?
    [ $rc = 0 ] || fail "part 4: cycle $c: the job ended with status $rc after checkpoint --exit: $(tail -3 "$T/piece$((c - 1)).err")"
    case $c in 2 | 10 | 50 | "$mpi_cycles")
        g=$(ls -d "$T"/c4/gen-* | sed 's/.*gen-//' | sort -n | tail -1)
        echo "part 4: cycle $c ($(($(date +%s) - start)) s, $at_hold at the hold, $retries retries so far): gen-$g $(du -sb "$T/c4/gen-$g" | cut -f1) bytes ($(complete_gens "$T/c4")); before the --exit: $before" ;;
    esac
    "$MPCR" restart "$T/c4" >"$T/piece$c.out" 2>"$T/piece$c.err" &
    run=$!
    pids="$pids $run"
done
touch "$hold"
wait $run
rc=$?
[ $rc = 0 ] || fail "part 4: the last restart ended with status $rc: $(tail -3 "$T/piece$mpi_cycles.err")"
for c in $(seq 0 "$mpi_cycles"); do cat "$T/piece$c.out"; done >"$T/ring4.out"
same_output "part 4" "$T/ring4.ref" "$T/ring4.out"
echo "part 4: $mpi_cycles --exit/restart cycles of $nranks ranks in $(($(date +%s) - start)) s ($at_hold at the hold, $retries retries while a restart was not ready); output and status as natively ($(grep -c . "$T/ring4.out") lines)"
fi

# 5
if part 5; then
n5=${NRANKS5:-32}
start=$(date +%s)
mpiexec.mpich -n "$n5" "$ring" "${ring5[@]}" >"$T/ring5.ref" 2>"$T/ring5.ref.err" || fail "part 5: the native run failed"
native_s=$(($(date +%s) - start))
hold=$T/release5
start=$(date +%s)
CKPT_HOLD=$hold "$MPCR" run -n "$n5" --ckpt-dir "$T/c5" "$ring" "${ring5[@]}" >"$T/ring5.out" 2>"$T/ring5.err" &
run=$!
pids="$pids $run"
for _ in $(seq 1200); do # every rank connected (32 ranks start slowly on 2 cores)
    "$MPCR" status "$T/c5" 2>/dev/null | grep -q "connected $n5 " && break
    kill -0 $run 2>/dev/null || fail "part 5: the job ended before all its ranks connected: $(tail -3 "$T/ring5.err")"
    sleep 0.1
done
connected_s=$(($(date +%s) - start))
sleep "$(awk -v r="$RANDOM" -v w="$native_s" 'BEGIN { printf "%.2f", 0.2 + (r % 1000) / 1000 * (w > 1 ? w / 2 : 0.5) }')"
for _ in $(seq 120); do
    timeout -k 5 300 "$MPCR" checkpoint --exit "$T/c5" 2>"$T/ck5.err" && break
    grep -q "try again" "$T/ck5.err" || fail "part 5: checkpoint --exit failed: $(cat "$T/ck5.err")"
    sleep 0.25
done
[ -e "$hold.reached" ] && where="at the hold" || where="mid-run"
wait $run
rc=$?
[ $rc = 0 ] || fail "part 5: the job ended with status $rc after checkpoint --exit"
first_s=$(($(date +%s) - start))
lines1=$(grep -c . "$T/ring5.out")
touch "$hold"
start=$(date +%s)
"$MPCR" restart "$T/c5" >>"$T/ring5.out" 2>"$T/ring5.restart.err"
rc=$?
[ $rc = 0 ] || fail "part 5: the restart ended with status $rc: $(tail -3 "$T/ring5.restart.err")"
sort "$T/ring5.ref" >"$T/ring5.ref.sorted"
sort "$T/ring5.out" >"$T/ring5.out.sorted"
same_output "part 5" "$T/ring5.ref.sorted" "$T/ring5.out.sorted"
echo "part 5: $n5 ranks (${ring5[*]}): natively $native_s s; under mpcr all connected after $connected_s s, checkpointed $where and ended after $first_s s ($lines1 lines), restarted to its end in $(($(date +%s) - start)) s; output and status as natively ($(grep -c . "$T/ring5.ref") lines); the checkpoint: $(grep -h "written to\|(stop" "$T/ck5.err" | sed 's/^mpcr: //' | paste -sd' ')"
fi
echo "$name: done"
