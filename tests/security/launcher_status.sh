#!/usr/bin/env bash
# The exit status of `mpcr run` after a signal (issue 13, point 9): an MPI
# job whose launcher (MPCR_MPIEXEC, docs/mpcr.1) is a wrapper of
# mpiexec.mpich that, told a signal, ends the job and itself exits 0 (as
# some launchers do): `mpcr run` told SIGTERM, SIGINT or SIGHUP still ends
# with 128 + the signal and says that the launcher ended with status 0
# after the signal it passed on; with and without a checkpoint directory
# (the coordinator's path and the plain one). The wrapper records that it
# was told, and its own status 0, so that the test cannot pass on a
# launcher that died of the signal instead.
#   launcher_status.sh MPI_PROGRAM ARGS...   (env MPCR; 2 ranks; a long run: the signal comes first)
set -u
name=launcher_status
. "$(dirname "$0")/common.sh"
cat >"$T/launcher" <<'EOF'
#!/usr/bin/env bash
# a launcher that ends with status 0 when told to stop
log=${LAUNCHER_LOG:?}
mpiexec.mpich "$@" &
job=$!
stop() {
    echo "told $1" >>"$log"
    kill -TERM $job 2>/dev/null
    wait $job
    echo "exit 0" >>"$log"
    exit 0
}
trap 'stop TERM' TERM
trap 'stop INT' INT
trap 'stop HUP' HUP
echo "started" >>"$log"
wait $job
rc=$?
echo "job ended $rc" >>"$log"
exit $rc
EOF
chmod 0755 "$T/launcher"
n=0
for case in "TERM plain" "INT ckpt" "HUP plain" "TERM ckpt"; do
    read -r sig how <<<"$case"
    n=$((n + 1))
    log=$T/launcher$n.log
    opts=()
    [ "$how" = ckpt ] && opts=(--ckpt-dir "$T/c$n")
    env --default-signal=INT MPCR_MPIEXEC="$T/launcher" LAUNCHER_LOG="$log" \
        "$MPCR" run -n 2 "${opts[@]}" "$@" >"$T/run$n.out" 2>"$T/run$n.err" &
    run=$!
    pids="$pids $run"
    wait_for -s "$log" || fail "$case: the launcher did not start"
    if [ "$how" = ckpt ]; then # every rank connected: the coordinator serves the job
        for _ in $(seq 400); do
            "$MPCR" status "$T/c$n" 2>/dev/null | grep -q "connected 2 " && break
            sleep 0.05
        done
        "$MPCR" status "$T/c$n" 2>/dev/null | grep -q "connected 2 " || fail "$case: the ranks did not connect"
    else
        sleep 1
    fi
    kill -0 $run 2>/dev/null || fail "$case: mpcr run ended before the signal: $(tail -3 "$T/run$n.err")"
    kill -"$sig" $run
    for _ in $(seq 400); do kill -0 $run 2>/dev/null || break; sleep 0.05; done
    kill -0 $run 2>/dev/null && fail "$case: mpcr run still runs 20 s after SIG$sig"
    wait $run
    rc=$?
    grep -qx "told $sig" "$log" || fail "$case: the launcher was not told SIG$sig: $(cat "$log")"
    grep -qx "exit 0" "$log" || fail "$case: the launcher did not end with status 0: $(cat "$log")"
    want=$((128 + $(kill -l "$sig")))
    [ $rc = $want ] || fail "$case: mpcr run ended with $rc after SIG$sig (its launcher with 0), not $want"
    grep -q "status 0) after mpcr passed on signal $(kill -l "$sig")" "$T/run$n.err" ||
        fail "$case: mpcr did not say the launcher ended with 0 after the signal: $(tail -3 "$T/run$n.err")"
done
echo "$name: PASS (a launcher that exits 0 when told: mpcr run ends with 143, 130, 129, 143 after SIGTERM, SIGINT, SIGHUP, SIGTERM, without and with a checkpoint directory, and says so)"
