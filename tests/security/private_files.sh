#!/usr/bin/env bash
# The coordinator's socket and every file mpcr creates in a checkpoint
# directory are the owner's alone, whatever the umask (issue 13, points 3
# and 4). With umask 000 and an existing 0755 directory:
#  - `mpcr coordinator --listen` writes coord.secret 0600 and does not
#    follow a coord.secret.tmp symlink planted to another file;
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
chmod 0644 "$T/victim"
ln -s "$T/victim" "$T/co/coord.secret.tmp"
port=$((40000 + RANDOM % 20000))
timeout 100 "$MPCR" coordinator --listen "127.0.0.1:$port" -n 1 --ckpt-dir "$T/co" 2>"$T/coord.err" &
coord=$!
pids="$pids $coord"
wait_for -s "$T/co/coord.secret" || fail "the coordinator wrote no coord.secret"
[ "$(cat "$T/victim")" = "not a secret" ] || fail "coord.secret.tmp followed a planted symlink: the victim file now holds '$(cat "$T/victim")'"
[ "$(mode_of "$T/co/coord.secret")" = 600 ] || fail "coord.secret has mode $(mode_of "$T/co/coord.secret"), not 600"
[ "$(mode_of "$T/co/coord.sock")" = 600 ] || fail "the listening coordinator's coord.sock has mode $(mode_of "$T/co/coord.sock"), not 600"
kill "$coord"

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
    grep -q "uid" "$T/run.err" || fail "the coordinator did not say that it refused another user's connection"
    others="user nobody refused"
else
    others="not root: another user's connection not tried"
fi
"$MPCR" checkpoint --exit "$T/ck" 2>"$T/ckpt2.err" || fail "the owner's checkpoint --exit failed"
wait "$run"
echo "$name: PASS (coord.sock, coord.secret, images, manifest private under umask 000; $others)"
