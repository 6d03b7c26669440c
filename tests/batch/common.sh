# Shared by the batch tests (sourced): they define fail() and $scratch.

# checkpoint_exit PID NRANKS DIR SECONDS: once every rank of the job whose
# launching process is PID has connected to DIR's coordinator (waiting at
# most SECONDS), `mpcr checkpoint --exit DIR`; then waits for PID, which
# must end with status 0, and checks that DIR/gen-1 is complete.
checkpoint_exit() {
    local pid=$1 n=$2 dir=$3 limit=$(($4 * 10)) i rc r
    for ((i = 0; i < limit; i++)); do
        "$MPCR" status "$dir" 2>/dev/null | grep -q "connected $n " && break
        kill -0 "$pid" 2>/dev/null || fail "the job ended before all its ranks reached the coordinator"
        sleep 0.1
    done
    ((i < limit)) || fail "the ranks did not all reach the coordinator in $4 s"
    sleep 0.3
    "$MPCR" checkpoint --exit "$dir" >"$scratch/ckpt.out" 2>"$scratch/ckpt.err" ||
        fail "mpcr checkpoint --exit failed"
    wait "$pid"
    rc=$?
    [ "$rc" = 0 ] || fail "the checkpointed job ended with status $rc, not 0"
    [ -f "$dir/gen-1/manifest" ] || fail "no complete gen-1 after the checkpoint"
    for ((r = 0; r < n; r++)); do
        [ -f "$dir/gen-1/rank-$r.img" ] || fail "gen-1 lacks rank-$r.img"
    done
}

# same_output WANT GOT...: the files GOT together hold WANT's lines (sorted:
# ranks print in any order); then no process naming $scratch is left (the
# coordinators end once every rank has gone).
same_output() {
    local want=$1 i
    shift
    cat "$@" | sort >"$scratch/got"
    sort "$want" >"$scratch/want"
    cmp -s "$scratch/got" "$scratch/want" ||
        fail "output differs from the native run: $(diff "$scratch/want" "$scratch/got" | head -10)"
    for ((i = 0; i < 100; i++)); do
        pgrep -f "$scratch" >/dev/null || break
        sleep 0.1
    done
    pgrep -af "$scratch" && fail "processes of the jobs are left"
}
