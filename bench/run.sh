#!/usr/bin/env bash
# mpcr's benchmarks, native and under mpcr side by side, in one run.
#
#   bench/run.sh            (REPS=3 by default; about three minutes on an idle machine)
#   REPS=5 bench/run.sh     (more repetitions, steadier medians)
#   RAW=FILE bench/run.sh   (also appends every single result to FILE)
#   COLL_RANKS="2 4 8" bench/run.sh   (the collectives at those rank counts; default 2:
#                           more ranks than half the cores share cores, where MPICH's
#                           busy-polling native ranks crawl: use a machine with a core for
#                           every rank and proxy, such as the 16-core device)
#
# Builds mpcr and the benchmarks if needed, then runs every benchmark REPS
# times, alternating native (mpiexec.mpich) and mpcr (`mpcr run`) so that
# whatever else the machine does falls on both alike, and prints one table:
# the median of the repetitions kept (each run already reports the median of its
# own batches), the best batch of all, and the ratios mpcr / native. See
# docs/performance.md.
#
# Before each repetition it waits (at most QUIET_WAIT seconds, default 10)
# for the machine to be idle, and measures what other processes used of it
# while the repetition ran; repetitions where that exceeds QUIET_MAX %
# (default 25) are set aside and replaced, up to 2*REPS tries, since timings
# on a machine where something else runs mean little. It says what it kept.
#
# On a machine shared with other work, NICE=-15 (root only) runs the whole
# script at that priority, pushing the other processes aside: the nearest
# a busy machine comes to a quiet one. No repetition is set aside then.
# Where the kernel groups processes by session (autogroup), a process's
# nice value only counts inside its session, so the script then starts a
# session of its own and gives that session the priority.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${NICE:-}" ] && [ -z "${MPCR_BENCH_NICED:-}" ]; then
    MPCR_BENCH_NICED=1 exec setsid --wait nice -n "$NICE" "$0" "$@"
fi
if [ -n "${NICE:-}" ] && [ -w /proc/self/autogroup ]; then
    echo "$NICE" >/proc/self/autogroup || echo "# cannot raise this session's priority" >&2
fi

REPS=${REPS:-3}
QUIET_WAIT=${QUIET_WAIT:-10}
PP_SECONDS=${PP_SECONDS:-0.25}     # per message size, per run
CC_SECONDS=${CC_SECONDS:-0.5}
IDLE_SECONDS=${IDLE_SECONDS:-2}
COLL_RANKS=${COLL_RANKS:-2}
BIN=build/bench
MPCR=build/bin/mpcr
unset MPCR_SPIN_NS MPCR_YIELD_NS MPCR_PROGRESS_YIELD # the proxy's own choice, except where a row says otherwise

if [ -z "${NO_BUILD:-}" ]; then # NO_BUILD=1: build/ was carried here (bench/device.sh)
    if [ ! -x "$MPCR" ]; then bash scripts/setup.sh >/dev/null; fi
    cmake --build build -j"$(nproc)" >/dev/null # no-op when up to date
fi

RES=$(mktemp) # results of the repetitions kept, "label metric value" a line
REP=$RES.rep  # results of the repetition running
trap 'rm -f "$RES" "$REP" "$RES.loaded" "$RES.times" "$RES.c0"' EXIT

# run LABEL COMMAND...: runs one benchmark, keeps its RESULT lines as "LABEL metric value".
run() {
    local label=$1 out
    shift
    if ! out=$(timeout 120 "$@" 2>&1); then
        echo "bench/run.sh: '$*' failed:" >&2
        echo "$out" >&2
        exit 1
    fi
    awk -v l="$label" '$1 == "RESULT" { print l, $2, $3 }' <<<"$out" >>"$REP"
}

# startup LABEL COMMAND...: wall time of a whole launch, in ms.
startup() {
    local label=$1 t0 t1
    shift
    t0=$(date +%s%N)
    if ! timeout 60 "$@" >/dev/null 2>&1; then
        echo "bench/run.sh: '$*' failed" >&2
        exit 1
    fi
    t1=$(date +%s%N)
    echo "$label startup_ms $(((t1 - t0) / 1000))e-3" >>"$REP"
    echo "$label startup_ms_best $(((t1 - t0) / 1000))e-3" >>"$REP"
}

# Percent of all cores busy over half a second, from /proc/stat.
busy_pct() {
    local a b
    a=$(head -1 /proc/stat)
    sleep 0.5
    b=$(head -1 /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN {
        n = split(a, x); split(b, y); total = 0
        for (i = 2; i <= n; i++) total += y[i] - x[i]
        idle = (y[5] - x[5]) + (y[6] - x[6])
        printf "%d", total ? 100 * (total - idle) / total : 0 }'
}

# CPU seconds that the whole machine has been busy since boot, and that this
# script's finished children (the benchmarks and all they started) used.
machine_cpu_s() {
    awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8) / hz }' /proc/stat
}
children_cpu_s() {
    times >"$RES.times" # in this shell: a pipe would run `times` in a subshell
    tail -1 "$RES.times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/)
                                  print u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

wait_quiet() {
    local busy deadline=$((SECONDS + QUIET_WAIT))
    while busy=$(busy_pct); ((busy > 15 && SECONDS < deadline)); do :; done
    echo "$busy"
}

cores=$(nproc)
mpich=$(mpichversion 2>/dev/null | awk -F'\t' '/Version/ { v = $NF } /Device/ { d = $NF }
                                          END { printf "MPICH %s (%s)", v, d }')
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $cores cores," \
    "$(uname -sr), $mpich"
session=$(sed 's/.*nice/(session nice/; s/$/)/' /proc/self/autogroup 2>/dev/null || true)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $REPS repetitions, nice $(nice) $session;" \
    "ratio = mpcr / native"
# A repetition during which other processes used more than QUIET_MAX % of
# the machine is set aside and another one run, at most 2*REPS in all; the
# medians come from the quiet ones, or from all when none was quiet.
QUIET_MAX=${QUIET_MAX:-25}
if [ -n "${NICE:-}" ]; then QUIET_MAX=100; fi
: >"$RES.loaded"
loads="" quiet=0
for ((try = 1; quiet < REPS && try <= 2 * REPS; try++)); do
    busy=$(wait_quiet)
    : >"$REP"
    children_cpu_s >"$RES.c0"
    m0=$(machine_cpu_s) c0=$(cat "$RES.c0") t0=$(date +%s%N)
    run pp.native mpiexec.mpich -n 2 $BIN/pingpong "$PP_SECONDS"
    run pp.mpcr "$MPCR" run -n 2 $BIN/pingpong "$PP_SECONDS"
    run pp.spin env MPCR_SPIN_NS=50000 "$MPCR" run -n 2 $BIN/pingpong "$PP_SECONDS"
    # large messages copied through the staging area, as before shared buffers (docs/pt2pt.md)
    run pp.copied env MPCR_SHARE_MIN=0 "$MPCR" run -n 2 $BIN/pingpong "$PP_SECONDS"
    run line $BIN/lineping "$CC_SECONDS"
    run cc1.native mpiexec.mpich -n 1 $BIN/callcost "$CC_SECONDS"
    run cc1.mpcr "$MPCR" run -n 1 $BIN/callcost "$CC_SECONDS"
    run cc1.nospin env MPCR_SPIN_NS=0 "$MPCR" run -n 1 $BIN/callcost "$CC_SECONDS"
    run cc2.native mpiexec.mpich -n 2 $BIN/callcost "$CC_SECONDS"
    run cc2.mpcr "$MPCR" run -n 2 $BIN/callcost "$CC_SECONDS"
    # every Iprobe asked of the proxy (src/lib/runtime/poll_pace.c): the price of one proxied call
    run cc1.unpaced env MPCR_POLL_PACE_NS=0 "$MPCR" run -n 1 $BIN/callcost "$CC_SECONDS"
    run cc2.unpaced env MPCR_POLL_PACE_NS=0 "$MPCR" run -n 2 $BIN/callcost "$CC_SECONDS"
    # asking for MPI_THREAD_MULTIPLE, calling from one thread (issue 16)
    run ccm.native env BENCH_THREAD_MULTIPLE=1 mpiexec.mpich -n 1 $BIN/callcost "$CC_SECONDS"
    run ccm.mpcr env BENCH_THREAD_MULTIPLE=1 "$MPCR" run -n 1 $BIN/callcost "$CC_SECONDS"
    run ppm.native env BENCH_THREAD_MULTIPLE=1 mpiexec.mpich -n 2 $BIN/pingpong "$PP_SECONDS"
    run ppm.mpcr env BENCH_THREAD_MULTIPLE=1 "$MPCR" run -n 2 $BIN/pingpong "$PP_SECONDS"
    # the same calls from Fortran (MPICH's libmpifort)
    if [ -x $BIN/fortran_calls ]; then
        run fc1.native mpiexec.mpich -n 1 $BIN/fortran_calls "$CC_SECONDS"
        run fc1.mpcr "$MPCR" run -n 1 $BIN/fortran_calls "$CC_SECONDS"
        run fc2.native mpiexec.mpich -n 2 $BIN/fortran_calls "$CC_SECONDS"
        run fc2.mpcr "$MPCR" run -n 2 $BIN/fortran_calls "$CC_SECONDS"
    fi
    # ...and an Open MPI build of it (mpcr's libmpi_mpifh.so.40) against Open MPI natively
    if [ -x $BIN/fortran_calls_openmpi ]; then
        ompirun=(mpirun.openmpi --allow-run-as-root --oversubscribe --mca pml ob1)
        run fo1.native "${ompirun[@]}" -n 1 $BIN/fortran_calls_openmpi "$CC_SECONDS"
        run fo1.mpcr "$MPCR" run -n 1 $BIN/fortran_calls_openmpi "$CC_SECONDS"
        run fo2.native "${ompirun[@]}" -n 2 $BIN/fortran_calls_openmpi "$CC_SECONDS"
        run fo2.mpcr "$MPCR" run -n 2 $BIN/fortran_calls_openmpi "$CC_SECONDS"
    fi
    # ...and built for the MPI 5.0 standard ABI (mpcr's libmpi_abi.so.1) against the MPICH builds natively
    if [ -x $BIN/callcost_abi ]; then
        run ca1.native mpiexec.mpich -n 1 $BIN/callcost "$CC_SECONDS"
        run ca1.mpcr "$MPCR" run -n 1 $BIN/callcost_abi "$CC_SECONDS"
        run pa.native mpiexec.mpich -n 2 $BIN/pingpong "$PP_SECONDS"
        run pa.mpcr "$MPCR" run -n 2 $BIN/pingpong_abi "$PP_SECONDS"
    fi
    run idle.native mpiexec.mpich -n 2 $BIN/idle_cpu "$IDLE_SECONDS"
    run idle.mpcr "$MPCR" run -n 2 $BIN/idle_cpu "$IDLE_SECONDS"
    run halo.native mpiexec.mpich -n 2 $BIN/halo "$CC_SECONDS"
    run halo.mpcr "$MPCR" run -n 2 $BIN/halo "$CC_SECONDS"
    for n in $COLL_RANKS; do
        run "coll$n.native" mpiexec.mpich -n "$n" $BIN/collectives "$CC_SECONDS"
        run "coll$n.mpcr" "$MPCR" run -n "$n" $BIN/collectives "$CC_SECONDS"
    done
    run rma.native mpiexec.mpich -n 2 $BIN/rma "$PP_SECONDS"
    run rma.mpcr "$MPCR" run -n 2 $BIN/rma "$PP_SECONDS"
    run kern.native mpiexec.mpich -n 2 $BIN/kernels "$CC_SECONDS"
    run kern.mpcr "$MPCR" run -n 2 $BIN/kernels "$CC_SECONDS"
    run ov.native mpiexec.mpich -n 2 $BIN/overlap "$CC_SECONDS"
    run ov.mpcr "$MPCR" run -n 2 $BIN/overlap "$CC_SECONDS"
    run np.native bench/netpipe.sh mpiexec.mpich -n 2
    run np.mpcr bench/netpipe.sh "$MPCR" run -n 2
    for _ in 1 2 3; do
        startup st.native mpiexec.mpich -n 2 $BIN/startup
        startup st.mpcr "$MPCR" run -n 2 $BIN/startup
    done
    # What others used while this repetition ran, in % of the whole machine.
    children_cpu_s >"$RES.c0"
    others=$(awk -v m0="$m0" -v m1="$(machine_cpu_s)" \
        -v c0="$c0" -v c1="$(cat "$RES.c0")" -v t="$(($(date +%s%N) - t0))" -v n="$cores" \
        'BEGIN { o = 100 * ((m1 - m0) - (c1 - c0)) / (t / 1e9 * n); printf "%d", o < 0 ? 0 : o }')
    if [ -n "${RAW:-}" ]; then # every result: repetition, others' %, label, metric, value
        awk -v r="$try" -v o="$others" '{ print r, o, $0 }' "$REP" >>"$RAW"
    fi
    if ((others <= QUIET_MAX)); then
        cat "$REP" >>"$RES"
        quiet=$((quiet + 1))
        loads="$loads ${others}%"
    else
        cat "$REP" >>"$RES.loaded"
        loads="$loads (${others}%)"
    fi
    echo "# repetition $try: machine ${busy}% busy before it," \
        "others used ${others}% of it during it" >&2
done
echo "# others' share of the machine during each repetition:$loads (in parentheses: set aside);" \
    "medians of the $quiet repetition(s) with at most $QUIET_MAX%"
if ((quiet == 0)); then
    echo "# WARNING: the machine was never quiet; the figures below come from a loaded machine"
    cp "$RES.loaded" "$RES"
fi

# median LABEL METRIC
median() {
    awk -v l="$1" -v m="$2" '$1 == l && $2 == m { print $3 }' "$RES" | sort -g |
        awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
                                   else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# best LABEL METRIC: the best batch of all repetitions (METRIC_best lines):
# the highest for a bandwidth, the lowest otherwise.
best() {
    awk -v l="$1" -v m="$2_best" -v hi="$([[ $2 == bw_* ]] && echo 1 || echo 0)" '
        $1 == l && $2 == m { v = $3 + 0; if (!n++ || (hi && v > b) || (!hi && v < b)) b = v }
        END { print (n ? b : "-") }' "$RES"
}

# row DESCRIPTION METRIC NATIVE_LABEL MPCR_LABEL
row() {
    awk -v d="$1" -v a="$(median "$3" "$2")" -v b="$(median "$4" "$2")" \
        -v c="$(best "$3" "$2")" -v e="$(best "$4" "$2")" '
        function num(x) { return x == "-" ? sprintf(" %9s", x) : sprintf(" %9.4g", x) }
        function ratio(x, y) {
            if (x == "-" || y == "-" || x + 0 == 0) return sprintf(" %6s", "-")
            return sprintf(" %6.2f", y / x)
        }
        BEGIN { printf "%-50s%s%s%s %s%s%s\n", d, num(a), num(b), ratio(a, b), num(c), num(e),
                       ratio(c, e) }'
}

spin2=$((2 * 2 <= cores ? 50000 : 0))
spin1=$((2 * 1 <= cores ? 50000 : 0))
echo "# median: of the repetitions; best: the best 1/5 batch of all (fastest time, highest rate)"
printf '%-50s %9s %9s %6s  %9s %9s %6s\n' metric native mpcr ratio "best nat" "best mpcr" ratio
row "ping-pong latency 0 B, 2 ranks (us)" latency_0B_us pp.native pp.mpcr
row "ping-pong latency 8 B, 2 ranks (us)" latency_8B_us pp.native pp.mpcr
row "ping-pong latency 1 KiB, 2 ranks (us)" latency_1KiB_us pp.native pp.mpcr
row "ping-pong bandwidth 64 KiB, 2 ranks (MB/s)" bw_64KiB_MBps pp.native pp.mpcr
row "ping-pong bandwidth 1 MiB, 2 ranks (MB/s)" bw_1MiB_MBps pp.native pp.mpcr
row "ping-pong bandwidth 16 MiB, 2 ranks (MB/s)" bw_16MiB_MBps pp.native pp.mpcr
row "Iprobe loop, 1 rank (ns a call) [spin $spin1 ns]" iprobe_ns cc1.native cc1.mpcr
row "Iprobe loop, 1 rank (ns a call) [MPCR_SPIN_NS=0]" iprobe_ns cc1.native cc1.nospin
row "Iprobe loop, 2 ranks (ns a call) [spin $spin2 ns]" iprobe_ns cc2.native cc2.mpcr
row "proxied call: Iprobe unpaced, 1 rank (ns)" iprobe_ns cc1.native cc1.unpaced
row "proxied call: Iprobe unpaced, 2 ranks (ns)" iprobe_ns cc2.native cc2.unpaced
row "Iprobe call, 1 rank, MULTIPLE asked (ns)" iprobe_ns ccm.native ccm.mpcr
row "ping-pong latency 8 B, 2 ranks, MULTIPLE asked (us)" latency_8B_us ppm.native ppm.mpcr
row "ping-pong bandwidth 1 MiB, 2 ranks, MULTIPLE asked (MB/s)" bw_1MiB_MBps ppm.native ppm.mpcr
row "Fortran MPI_IPROBE, 1 rank (ns)" f_iprobe_ns fc1.native fc1.mpcr
row "Fortran ping-pong 8 B, 2 ranks (us)" f_pingpong_8B_us fc2.native fc2.mpcr
row "Fortran MPI_ALLREDUCE 8 B, 2 ranks (us)" f_allreduce_8B_us fc2.native fc2.mpcr
row "Open MPI-built Fortran MPI_IPROBE, 1 rank (ns) [native: Open MPI]" f_iprobe_ns fo1.native fo1.mpcr
row "Open MPI-built Fortran ping-pong 8 B, 2 ranks (us)" f_pingpong_8B_us fo2.native fo2.mpcr
row "Open MPI-built Fortran MPI_ALLREDUCE 8 B, 2 ranks (us)" f_allreduce_8B_us fo2.native fo2.mpcr
row "MPI 5.0 ABI build: Iprobe loop, 1 rank (ns) [native: MPICH build]" iprobe_ns ca1.native ca1.mpcr
row "MPI 5.0 ABI build: ping-pong 8 B, 2 ranks (us)" latency_8B_us pa.native pa.mpcr
row "MPI 5.0 ABI build: ping-pong 1 MiB, 2 ranks (MB/s)" bw_1MiB_MBps pa.native pa.mpcr
row "parent's CPU, app computing (% of a core)" parent_cpu_pct idle.native idle.mpcr
row "parent's wake-ups, app computing (per s)" parent_wakeups_per_s idle.native idle.mpcr
row "start-up + finalize, 2 ranks (ms)" startup_ms st.native st.mpcr
row "halo exchange 64x64 a rank, 2 ranks (us/iter)" halo_64_us halo.native halo.mpcr
row "halo exchange 512x512 a rank, 2 ranks (us/iter)" halo_512_us halo.native halo.mpcr
row "halo 64x64, persistent requests (us/iter)" halo_64_persistent_us halo.native halo.mpcr
for n in $COLL_RANKS; do
    row "Allreduce 8 B, $n ranks (us)" allreduce_8B_us "coll$n.native" "coll$n.mpcr"
    row "Allreduce 64 KiB, $n ranks (us)" allreduce_64KiB_us "coll$n.native" "coll$n.mpcr"
    row "Allreduce 1 MiB, $n ranks (us)" allreduce_1MiB_us "coll$n.native" "coll$n.mpcr"
    row "Bcast 1 MiB, $n ranks (us)" bcast_1MiB_us "coll$n.native" "coll$n.mpcr"
    row "Alltoall 4 KiB, $n ranks (us)" alltoall_4KiB_us "coll$n.native" "coll$n.mpcr"
    row "Allgather 64 KiB, $n ranks (us)" allgather_64KiB_us "coll$n.native" "coll$n.mpcr"
    row "Reduce_scatter_block 1 MiB, $n ranks (us)" reduce_scatter_1MiB_us "coll$n.native" "coll$n.mpcr"
done
row "one-sided Put 8 B + flush, 2 ranks (us)" put_8B_us rma.native rma.mpcr
row "one-sided Put 1 MiB + flush (us)" put_1MiB_us rma.native rma.mpcr
row "one-sided Get 8 B + flush (us)" get_8B_us rma.native rma.mpcr
row "one-sided Accumulate 8 B + flush (us)" acc_8B_us rma.native rma.mpcr
row "one-sided Fetch_and_op + flush (us)" fop_us rma.native rma.mpcr
row "one-sided Compare_and_swap + flush (us)" cas_us rma.native rma.mpcr
row "one-sided fence epoch, one Put (us)" fence_us rma.native rma.mpcr
row "one-sided lock, Put 8 B, unlock (us)" lock_us rma.native rma.mpcr
row "one-sided Put 8 B, MPI_Win_create window (us)" created_put_8B_us rma.native rma.mpcr
row "one-sided Put 1 MiB, MPI_Win_create window (us)" created_put_1MiB_us rma.native rma.mpcr
for k in stencil3d stencil3d_persistent cg particles fft2d; do
    row "kernel $k, 2 ranks (us/iter)" "kernel_${k}_us" kern.native kern.mpcr
    row "kernel $k: rank 0's time in MPI (%)" "kernel_${k}_us_comm_pct" kern.native kern.mpcr
done
row "wait after 10 ms computing: Isend+Irecv 4 MiB (us)" overlap_p2p_4MiB_wait_us ov.native ov.mpcr
row "wait after 10 ms computing: Iallreduce 1 MiB (us)" overlap_iallreduce_1MiB_wait_us ov.native ov.mpcr
row "parent's CPU, receive pending, computing (%)" overlap_pending_recv_parent_cpu_pct ov.native ov.mpcr
row "NPmpich2 (unmodified) latency 8 B (us)" np_latency_8B_us np.native np.mpcr
row "NPmpich2 bandwidth 64 KiB (MB/s)" np_bw_64KiB_MBps np.native np.mpcr
row "NPmpich2 bandwidth 1 MiB (MB/s)" np_bw_1MiB_MBps np.native np.mpcr
row "NPmpich2 bandwidth 4 MiB (MB/s)" np_bw_4MiB_MBps np.native np.mpcr
echo "# mpcr with MPCR_SPIN_NS=50000 at 2 ranks" \
    "(spinning although $((2 * 2)) processes share $cores cores):"
row "ping-pong latency 8 B, 2 ranks, spinning (us)" latency_8B_us pp.native pp.spin
row "ping-pong bandwidth 1 MiB, 2 ranks, spinning (MB/s)" bw_1MiB_MBps pp.native pp.spin
echo "# mpcr with MPCR_SHARE_MIN=0 (large messages copied through the staging area, no shared buffers):"
row "ping-pong bandwidth 1 MiB, 2 ranks, copied (MB/s)" bw_1MiB_MBps pp.native pp.copied
row "ping-pong bandwidth 16 MiB, 2 ranks, copied (MB/s)" bw_16MiB_MBps pp.native pp.copied
awk -v l="$(median line line_rtt_ns)" -v lb="$(best line line_rtt_ns)" \
    -v a="$(median cc1.native iprobe_ns)" -v b="$(median cc1.unpaced iprobe_ns)" 'BEGIN {
    printf "# floor: one cache-line round trip between two spinning processes: %.0f ns", l
    printf " (best %.0f);\n", lb
    printf "# a proxied call (Iprobe unpaced, 1 rank) costs %.0f ns more than native\n", b - a }'
