#!/usr/bin/env bash
# The coordinator's socket and every file mpcr creates in a checkpoint
# directory are the owner's alone, whatever the umask (issue 13, points 3
# and 4). With umask 000 and an existing 0755 directory:
#  - `mpcr coordinator --listen` writes coord.secret and coord.job 0600
#    and follows neither coord.secret.tmp nor coord.job.tmp, symlinks
#    planted to other files; it leaves the directory 0755 (see
#    mpcr_coord_open: no one else may write in it);
#  - a directory of mode 0777 is refused, naming it; one that mpcr makes
#    itself is 0700;
#  - `mpcr run --no-mpi`'s coord.sock is 0600; a checkpoint's generation
#    directory is 0700 and its image and manifest 0600;
#  - as root: with the socket's mode widened to 0777 (as a umask of 000
#    made it before), user nobody's `checkpoint exit` is refused (the
#    coordinator checks the peer's uid) and the program goes on.
#   private_files.sh PROGRAM ARGS...    (env MPCR)
set -u
name=private_files
. "$(dirname "$0")/common.sh"
umask 000

# The secret of a coordinator listening on TCP.
mkdir -m 0755 "$T/co"
echo "not a secret" >"$T/victim"
echo "not a job" >"$T/victim2"
chmod 0644 "$T/victim" "$T/victim2"
ln -s "$T/victim" "$T/co/coord.secret.tmp"
ln -s "$T/victim2" "$T/co/coord.job.tmp"
port=$(free_port)
timeout 100 "$MPCR" coordinator --listen "127.0.0.1:$port" -n 1 --ckpt-dir "$T/co" 2>"$T/coord.err" &
coord=$!
pids="$pids $coord"
wait_for -s "$T/co/coord.secret" || fail "the coordinator wrote no coord.secret"
wait_for -s "$T/co/coord.job" || fail "the coordinator wrote no coord.job"
[ "$(cat "$T/victim")" = "not a secret" ] || fail "coord.secret.tmp followed a planted symlink: the victim file now holds '$(cat "$T/victim")'"
[ "$(cat "$T/victim2")" = "not a job" ] || fail "coord.job.tmp followed a planted symlink: the victim file now holds '$(cat "$T/victim2")'"
for f in coord.secret coord.job; do
    [ "$(mode_of "$T/co/$f")" = 600 ] || fail "$f has mode $(mode_of "$T/co/$f"), not 600"
done
[ "$(mode_of "$T/co")" = 755 ] || fail "the existing directory's mode was changed to $(mode_of "$T/co")"
[ "$(mode_of "$T/co/coord.sock")" = 600 ] || fail "the listening coordinator's coord.sock has mode $(mode_of "$T/co/coord.sock"), not 600"
kill "$coord"

# A directory that others may write in is refused, naming it (nothing is
# created in it, nothing runs); one that mpcr makes itself is 0700.
mkdir -m 0777 "$T/open"
timeout 100 "$MPCR" run --no-mpi --ckpt-dir "$T/open" echo ran >"$T/out" 2>"$T/open.err" && fail "mpcr run used a directory of mode 0777"
grep -q "refusing the checkpoint directory: $T/open is writable by other users (mode 0777)" "$T/open.err" ||
    fail "the refusal of a 0777 directory: $(cat "$T/open.err")"
[ -s "$T/out" ] && fail "the program ran in a refused directory: $(cat "$T/out")"
[ -z "$(ls -A "$T/open")" ] || fail "mpcr left files in a refused directory: $(ls -A "$T/open")"
timeout 100 "$MPCR" run --no-mpi --ckpt-dir "$T/new" true 2>"$T/new.err" || fail "mpcr run in a new directory failed"
[ "$(mode_of "$T/new")" = 700 ] || fail "the directory mpcr made under umask 000 has mode $(mode_of "$T/new"), not 700"

# One process's coordinator and its checkpoint.
mkdir -m 0755 "$T/ck"
timeout 100 "$MPCR" run --no-mpi --ckpt-dir "$T/ck" "$@" >"$T/out" 2>"$T/run.err" &
run=$!
pids="$pids $run"
wait_for -S "$T/ck/coord.sock" || fail "mpcr run made no coord.sock"
[ "$(mode_of "$T/ck/coord.sock")" = 600 ] || fail "coord.sock has mode $(mode_of "$T/ck/coord.sock") under umask 000, not 600"
"$MPCR" checkpoint "$T/ck" 2>"$T/ckpt.err" || fail "the checkpoint failed"
[ "$(mode_of "$T/ck/gen-1")" = 700 ] || fail "gen-1 has mode $(mode_of "$T/ck/gen-1"), not 700"
for f in gen-1/rank-0.img gen-1/manifest; do
    [ "$(mode_of "$T/ck/$f")" = 600 ] || fail "$f has mode $(mode_of "$T/ck/$f"), not 600"
done
if is_root; then
    chmod 0777 "$T/ck/coord.sock"
    answer=$(as_other bash -c "$(declare -f ask_sock); ask_sock '$T/ck/coord.sock' 'checkpoint exit'")
    echo "nobody's checkpoint exit: answered \"$answer\""
    case $answer in ok*) fail "user nobody's 'checkpoint exit' was obeyed" ;; esac
    sleep 0.5
    kill -0 "$run" 2>/dev/null || fail "the program ended after user nobody's request"
    grep -q "^mpcr: coordinator: refused a connection from uid $(id -u nobody) (pid [0-9]*): only its owner, uid 0, may use it$" "$T/run.err" ||
        fail "the coordinator did not say that it refused user nobody's connection"
    others="user nobody refused"
else
    others="not root: another user's connection not tried"
fi
"$MPCR" checkpoint --exit "$T/ck" 2>"$T/ckpt2.err" || fail "the owner's checkpoint --exit failed"
wait "$run"
[ "$(mode_of "$T/ck")" = 755 ] || fail "the existing directory's mode was changed to $(mode_of "$T/ck")"
echo "$name: PASS (coord.sock, coord.secret, coord.job, images, manifest private under umask 000; a new directory 0700, an existing 0755 one kept, a 0777 one refused; $others)"
