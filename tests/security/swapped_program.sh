#!/usr/bin/env bash
# A restart maps only the program it checkpointed, or a copy with the same
# contents (issue 43, point 1). A process (sec_wait) runs from a directory of
# its own, is checkpointed with --exit, and then:
#  - rebuilt in place by its owner (same inode, same size, one string changed):
#    refused, the message saying what changed and how to proceed;
#  - made writable by others: refused, naming the mode;
#  - as root, with the directory writable by nobody (0777, no sticky bit):
#    nobody renames a doctored copy over it, same size and same mtime (the
#    planted swap): refused as another user's file; with
#    --trust-files-others-can-change still refused, by its contents;
#  - put back as a copy (another inode, as on another host): restarts, and
#    prints what an uninterrupted run of the same program prints.
# Without the checks the doctored string is what the restart prints
# ("PWND after": its pages come from the file, not the image).
#   swapped_program.sh SEC_WAIT      (env MPCR)
set -u
name=swapped_program
. "$(dirname "$0")/common.sh"
D=$T/bin
mkdir "$D"
cp -p "$1" "$D/prog"
cp -p "$1" "$T/prog.orig"
is_root && chmod 0777 "$D" # nobody may create and rename entries here

# doctor FILE: the same bytes but one string of the program's, same length
doctor() { python3 -c 'import sys; p=sys.argv[1]; b=open(p,"rb").read(); open(p,"r+b").write(b.replace(b"done after", b"PWND after"))' "$1"; }

"$T/prog.orig" swap 5 >"$T/native.out" & # the uninterrupted run (a copy: the file is busy while it runs), alongside
native=$!
pids="$pids $native"
timeout 60 "$MPCR" run --no-mpi --ckpt-dir "$T/ck" "$D/prog" swap 5 >"$T/run.out" 2>"$T/run.err" &
run=$!
pids="$pids $run"
wait_for -S "$T/ck/coord.sock" || fail "the job did not start"
"$MPCR" checkpoint --exit "$T/ck" 2>"$T/ck.err" || fail "the checkpoint failed"
wait "$run"
[ -s "$T/ck/gen-1/manifest" ] || fail "no gen-1"

# refused WHAT PATTERN [OPTION]: the restart must end with 1, say PATTERN, run nothing
refused() {
    timeout -k 5 30 "$MPCR" restart ${3:+"$3"} "$T/ck" >"$T/r.out" 2>"$T/r.err"
    local rc=$?
    [ $rc = 1 ] || fail "$1: mpcr restart ended with status $rc, not 1 (output: $(head -c 200 "$T/r.out"); $(head -3 "$T/r.err"))"
    grep -q -- "$2" "$T/r.err" || fail "$1: the message does not say '$2': $(cat "$T/r.err")"
    [ -s "$T/r.out" ] && fail "$1: something ran: $(cat "$T/r.out")"
    echo "refused $1: $(head -1 "$T/r.err")"
}

doctor "$D/prog"
refused "the program rebuilt in place" "mapped file $D/prog changed since the checkpoint (its contents differ: another SHA-256): a restart maps the files as they were at the checkpoint; put them back .* or start the job again with mpcr run"
cat "$T/prog.orig" >"$D/prog" && touch -r "$T/prog.orig" "$D/prog" # as checkpointed, but its ctime
chmod o+w "$D/prog"
refused "the program writable by others" "mapped file $D/prog is writable by other users (mode 0757)"
chmod o-w "$D/prog"

if is_root; then
    as_other cp "$D/prog" "$D/.new" && as_other bash -c "$(declare -f doctor); doctor $D/.new" && as_other touch -r "$D/prog" "$D/.new" &&
        as_other mv "$D/.new" "$D/prog" || fail "nobody could not swap the program"
    [ "$(stat -c '%s %Y %U' "$D/prog")" = "$(stat -c '%s %Y' "$T/prog.orig") nobody" ] ||
        fail "the swap is not of the same size and mtime: $(stat -c '%s %Y %U' "$D/prog" "$T/prog.orig")"
    refused "nobody's swap" "mapped file $D/prog is owned by uid 65534, another user .* restart with --trust-files-others-can-change to take that risk"
    refused "nobody's swap, others' files trusted" "mapped file $D/prog changed since the checkpoint (its contents differ" \
        --trust-files-others-can-change
else
    echo "(as $(id -un): nobody's swap is tried in the run as root)"
fi

cp "$T/prog.orig" "$D/.copy" && mv "$D/.copy" "$D/prog" # another inode, the same contents
timeout -k 5 60 "$MPCR" restart "$T/ck" >"$T/r.out" 2>"$T/r.err" || fail "the copy's restart failed: $(cat "$T/r.err")"
wait "$native"
cmp -s "$T/r.out" "$T/native.out" || fail "the restart printed '$(cat "$T/r.out")', the uninterrupted run '$(cat "$T/native.out")'"
echo "$name: PASS (restarted from a copy: $(cat "$T/r.out"))"
