#!/usr/bin/env bash
# Nothing planted in a checkpoint directory is written through (issue 13,
# point 4), at the moments no other test reaches:
#  - a generation directory planted before its checkpoint (a link to a
#    directory elsewhere) makes that checkpoint fail with a message, and
#    nothing is written where the link points; the next checkpoint works
#    (one process, and an MPI job of 2 ranks);
#  - a link planted at each generation temporary's path (manifest.tmp, in
#    the coordinator; rank-K.img.tmp, in the program's engine;
#    rank-K.state.tmp, in each proxy) between the removal of a leftover and
#    mpcr's open (plant.c,
#    LD_PRELOAD, makes the race deterministic) is never followed: the open
#    is made with O_EXCL and O_NOFOLLOW and fails with EEXIST (the log of
#    plant.c says so), the file the link points to is unchanged; a refused
#    manifest, image or state file fails that checkpoint with a message
#    naming the file, and the next checkpoint and a restart from it work,
#    the output that of a run without mpcr.
#  PLANT_BREAK=.tmp (or manifest.tmp, .img.tmp, .state.tmp) takes O_EXCL
#  and O_NOFOLLOW off those opens, PLANT_BREAK=mkdir makes a planted
#  generation directory look made (plant.c): this test must then fail, on
#  the file written through the link (docs/security.md).
#   planted.sh SEC_WAIT PLANT_SO MPI_PROGRAM ARGS...   (env MPCR; 2 ranks)
set -u
name=planted
. "$(dirname "$0")/common.sh"
prog=$1 so=$2
shift 2
[ -r "$so" ] || fail "no $so"
printf 'precious\n' >"$T/target"
chmod 0644 "$T/target"
sum0=$(sha256sum <"$T/target")
mkdir "$T/elsewhere"
untouched() { # WHAT: the target and the directory elsewhere as they were
    [ -L "$T/target" ] && fail "$1: the target was replaced by a link"
    [ "$(sha256sum <"$T/target")" = "$sum0" ] || fail "$1: the file the planted link points to was written: $(head -c 200 "$T/target" | od -c | head -3)"
    [ "$(mode_of "$T/target")" = 644 ] || fail "$1: the target's mode became $(mode_of "$T/target")"
    [ -z "$(ls -A "$T/elsewhere")" ] || fail "$1: written through the planted generation: $(ls -A "$T/elsewhere")"
}
# logged PLANT_DIR PATH: the open of PATH saw the planted link, with O_EXCL and O_NOFOLLOW, and failed with EEXIST
logged() {
    grep -qx "planted $2" "$1/log" || fail "no link was planted at $2: $(cat "$1/log" 2>/dev/null)"
    grep -qx "open $2 excl=1 nofollow=1 -> EEXIST" "$1/log" ||
        fail "the open of $2 did not fail with EEXIST (O_EXCL|O_NOFOLLOW) over the planted link: $(cat "$1/log")"
}
# with_plant DIR VAR=VALUE... COMMAND...: COMMAND with plant.c preloaded, logging into DIR;
# only as `with_plant ... &`: it becomes COMMAND (exec), so that $! is COMMAND's pid
# and the clean-up's kill reaches mpcr itself
with_plant() {
    local d=$1
    shift
    mkdir -p "$d"
    exec env LD_PRELOAD="$so${LD_PRELOAD:+:$LD_PRELOAD}" PLANT_TARGET="$T/target" PLANT_DIR="$d" "$@"
}
# start_single CKPT_DIR TAG SECONDS [VAR=VALUE...]: mpcr run --no-mpi of SEC_WAIT, pid in $run
start_single() {
    local dir=$1 tag=$2 s=$3
    shift 3
    with_plant "$T/p-$tag" "$@" "$MPCR" run --no-mpi --ckpt-dir "$dir" "$prog" "$tag" "$s" >"$T/$tag.out" 2>"$T/$tag-run.err" &
    run=$!
    pids="$pids $run"
    wait_for -S "$dir/coord.sock" || fail "$tag: mpcr run did not start"
    sleep 0.2
}
checkpoint_ok() { # DIR WHAT [--exit]
    "$MPCR" checkpoint ${3:-} "$1" 2>"$T/ck.err" || fail "$2: $(cat "$T/ck.err")"
}

# 1. one process: its generation directory planted (a link to elsewhere/)
start_single "$T/g" g 30
ln -s "$T/elsewhere" "$T/g/gen-1"
"$MPCR" checkpoint "$T/g" 2>"$T/g-ck.err"
rc=$?
untouched "planted gen-1 (one process)"
[ $rc != 0 ] || fail "a checkpoint into a planted generation directory (a link) succeeded"
grep -q "generation 1: File exists" "$T/g-ck.err" || fail "planted gen-1: $(cat "$T/g-ck.err")"
[ -L "$T/g/gen-1" ] || fail "the planted gen-1 is no longer the link planted"
checkpoint_ok "$T/g" "the checkpoint after the planted gen-1"
[ -f "$T/g/gen-2/manifest" ] && [ ! -L "$T/g/gen-2" ] || fail "gen-2 is not a generation of mpcr's: $(ls -la "$T/g")"
kill $run
wait $run 2>/dev/null

# 2. the manifest's temporary: linked after the coordinator removed a leftover, before it
# creates its own (the one atomic writer, src/common/atomic_file.c, as for the image)
start_single "$T/m" m 30 PLANT_UNLINK=manifest.tmp
"$MPCR" checkpoint "$T/m" 2>"$T/m-ck.err" && fail "a checkpoint whose manifest temporary was a planted link succeeded"
untouched "link at manifest.tmp"
grep -q "gen-1/manifest: File exists" "$T/m-ck.err" || fail "planted manifest.tmp: $(cat "$T/m-ck.err")"
logged "$T/p-m" "$T/m/gen-1/manifest.tmp"
checkpoint_ok "$T/m" "the checkpoint after the refused manifest"
[ -f "$T/m/gen-2/manifest" ] && [ ! -L "$T/m/gen-2/manifest" ] || fail "gen-2/manifest is not a regular file"
[ "$(mode_of "$T/m/gen-2/manifest")" = 600 ] || fail "gen-2/manifest has mode $(mode_of "$T/m/gen-2/manifest")"
kill $run
wait $run 2>/dev/null

# 3. the image's temporary: linked after the engine removed a leftover, before it creates its own
"$prog" i 5 >"$T/i.ref" & # the reference (it sleeps: beside the job, not before it)
ref=$!
start_single "$T/i" i 5 PLANT_UNLINK=.img.tmp
"$MPCR" checkpoint "$T/i" 2>"$T/i-ck.err"
rc=$?
untouched "link at rank-0.img.tmp"
[ $rc != 0 ] || fail "a checkpoint whose image temporary was a planted link succeeded"
grep -q "rank-0.img.tmp: File exists" "$T/i-ck.err" || fail "planted rank-0.img.tmp: $(cat "$T/i-ck.err")"
logged "$T/p-i" "$T/i/gen-1/rank-0.img.tmp"
kill -0 $run 2>/dev/null || fail "the program ended after its refused checkpoint: $(cat "$T/i-run.err")"
checkpoint_ok "$T/i" "the checkpoint --exit after the refused one" --exit
wait $run || fail "mpcr run ended with status $? after checkpoint --exit"
"$MPCR" restart "$T/i" >>"$T/i.out" 2>"$T/i-restart.err" || fail "the restart after the refused checkpoint: $(cat "$T/i-restart.err")"
wait $ref || fail "the reference run without mpcr failed"
cmp -s "$T/i.ref" "$T/i.out" || fail "output $(cat "$T/i.out"), without mpcr $(cat "$T/i.ref")"
untouched "restart after the link at rank-0.img.tmp"

# 4. an MPI job: its generation directory planted, then each proxy's state temporary
timeout 120 mpiexec.mpich -n 2 "$@" >"$T/ring.ref" 2>/dev/null || fail "the native run failed"
CKPT_HOLD=$T/release with_plant "$T/p-s" PLANT_UNLINK=.state.tmp \
    "$MPCR" run -n 2 --ckpt-dir "$T/s" "$@" >"$T/ring.out" 2>"$T/ring-run.err" &
run=$!
pids="$pids $run"
for _ in $(seq 400); do
    "$MPCR" status "$T/s" 2>/dev/null | grep -q "connected 2 " && break
    kill -0 $run 2>/dev/null || fail "the MPI job ended before its ranks connected"
    sleep 0.05
done
ln -s "$T/elsewhere" "$T/s/gen-1"
"$MPCR" checkpoint "$T/s" 2>"$T/s1-ck.err"
rc=$?
untouched "planted gen-1 (MPI job)"
[ $rc != 0 ] || fail "an MPI checkpoint into a planted generation directory succeeded"
grep -q "gen-1: File exists" "$T/s1-ck.err" || fail "MPI, planted gen-1: $(cat "$T/s1-ck.err")"
# each proxy meets its link once; the first to meet one fails that
# checkpoint, the other may meet its own in the next
refused=0 g=1
while :; do
    g=$((g + 1))
    "$MPCR" checkpoint "$T/s" 2>"$T/s$g-ck.err"
    rc=$?
    untouched "links at rank-K.state.tmp (gen-$g)"
    [ $rc = 0 ] && break
    grep -q "rank-[01].state.tmp: File exists" "$T/s$g-ck.err" || fail "planted rank-K.state.tmp (gen-$g): $(cat "$T/s$g-ck.err")"
    refused=$((refused + 1))
    [ $refused -le 2 ] || fail "$refused checkpoints refused, for 2 links planted"
    kill -0 $run 2>/dev/null || fail "the MPI job ended after its refused checkpoint: $(tail -5 "$T/ring-run.err")"
done
[ $refused -ge 1 ] || fail "no checkpoint met a planted rank-K.state.tmp"
planted=$(sed -n 's/^planted //p' "$T/p-s/log")
[ "$(echo "$planted" | grep -c "state.tmp$")" = 2 ] || fail "not one link per proxy: $planted"
for f in $planted; do logged "$T/p-s" "$f"; done
untouched "links at rank-K.state.tmp"
checkpoint_ok "$T/s" "the MPI checkpoint --exit after the refused one" --exit
wait $run || fail "the MPI job ended with status $? after checkpoint --exit"
touch "$T/release"
timeout 120 "$MPCR" restart "$T/s" >>"$T/ring.out" 2>"$T/ring-restart.err" || fail "the MPI restart: $(tail -5 "$T/ring-restart.err")"
sort "$T/ring.ref" >"$T/ring.ref.sorted"
sort "$T/ring.out" >"$T/ring.out.sorted"
cmp -s "$T/ring.ref.sorted" "$T/ring.out.sorted" || fail "the MPI job's output differs from the native run's: $(diff "$T/ring.ref.sorted" "$T/ring.out.sorted" | head -5)"
untouched "the MPI restart"
echo "$name: PASS (planted generation directories refused, one process and MPI; links planted at manifest.tmp, rank-0.img.tmp, rank-0.state.tmp, rank-1.state.tmp ($refused MPI checkpoints refused) met O_EXCL|O_NOFOLLOW (EEXIST), never followed; the checkpoints after them and the restarts work, output as without mpcr)"
