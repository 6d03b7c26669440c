#!/usr/bin/env bash
# `cmake --install` into a prefix that is then moved elsewhere: the moved
# tree must work on its own (mpcr finds its proxy, library and restorer
# relative to its own executable; docs/mpcr.1, FILES):
#   install.sh BUILD_DIR PROGRAM ARGS...
# - mpcr --version, the manual page and mpcr.pc are where they belong;
# - a 2-rank job run by the moved mpcr uses the moved proxy and MPI library
#   (/proc/PID/exe, /proc/PID/maps), is checkpointed with --exit and
#   restarted by the moved mpcr; the pieces' output equals the native run's;
# - a program built with `pkg-config --cflags --libs mpcr` against the moved
#   tree checkpoints itself, and the moved restorer restarts it.
# Environment: KEEP.
set -u
build=$1
shift
. "$(dirname "$0")/common.sh" install
here=$(cd "$(dirname "$0")" && pwd)

cmake --install "$build" --prefix "$scratch/first" >"$scratch/install.out" 2>"$scratch/install.err" ||
    fail "cmake --install failed"
mv "$scratch/first" "$scratch/moved"
P=$scratch/moved
for f in bin/mpcr libexec/mpcr/mpcr-proxy-mpich libexec/mpcr/mpcr-restore lib/mpcr/libmpich.so.12 \
    lib/mpcr/libmpi.so.12 lib/mpcr/libmpcr-engine.so lib/mpcr/libmpcr-guard.so include/mpcr/engine.h \
    share/man/man1/mpcr.1 \
    lib/pkgconfig/mpcr.pc; do
    [ -e "$P/$f" ] || fail "the installed tree lacks $f"
done
MPCR=$P/bin/mpcr
"$MPCR" --version | grep -q "^mpcr [0-9]" || fail "the moved mpcr --version says: $("$MPCR" --version 2>&1)"
MANWIDTH=100 man -l "$P/share/man/man1/mpcr.1" 2>/dev/null | grep -q "mpcr exec" ||
    fail "the installed manual page does not read"

. "$(dirname "$0")/../native_run.sh"
native_run "$scratch/ref" "$scratch/ref.err" 2 "$@"
ref_rc=$?
[ -s "$scratch/ref" ] || fail "the native run printed nothing (status $ref_rc)"
D=$scratch/ck
hold_jobs # the job's end (and half-way) waits for checkpoint_exit's checkpoint
"$MPCR" run -n 2 --ckpt-dir "$D" "$@" >"$scratch/first.out" 2>"$scratch/first.err" &
job=$!
wait_connected "$job" 2 "$D" 60
# The job's proxies and programs are the moved tree's.
proxies=0 libs=0
for p in $(pgrep -f "mpcr-proxy-mpich"); do
    # this job's proxies: not its launchers (their command lines name the
    # proxy too), not another job's
    exe=$(readlink "/proc/$p/exe")
    [ "${exe##*/}" = mpcr-proxy-mpich ] && grep -q "$D" "/proc/$p/environ" 2>/dev/null || continue
    [ "$exe" = "$P/libexec/mpcr/mpcr-proxy-mpich" ] || fail "a proxy runs $exe, not the moved tree's"
    proxies=$((proxies + 1))
    for c in $(pgrep -P "$p"); do
        grep -q " $P/lib/mpcr/libmpich.so.12" "/proc/$c/maps" && libs=$((libs + 1))
    done
done
[ "$proxies" = 2 ] && [ "$libs" = 2 ] ||
    fail "$proxies proxies and $libs programs with the moved libmpich.so.12 found, not 2 and 2"
checkpoint_exit "$job" 2 "$D" 60
job=
"$MPCR" restart "$D" >"$scratch/second.out" 2>"$scratch/second.err"
rc=$?
[ "$rc" = "$ref_rc" ] || fail "the restarted job ended with status $rc, the native run with $ref_rc"
same_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out"

export PKG_CONFIG_PATH=$P/lib/pkgconfig
[ "$(pkg-config --modversion mpcr)" = "$("$MPCR" --version | awk '{print $2}')" ] ||
    fail "pkg-config --modversion mpcr is not mpcr --version's"
# shellcheck disable=SC2046
cc -o "$scratch/engine_api" "$here/engine_api.c" $(pkg-config --cflags --libs mpcr) 2>"$scratch/cc.err" ||
    fail "cannot build against the moved tree with pkg-config"
# (without the descriptors ctest leaves open: pipes cannot be checkpointed)
(
    for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
    exec "$scratch/engine_api" "$scratch/api.img"
) >"$scratch/api1.out" 2>"$scratch/api1.err" || fail "engine_api failed"
"$P/libexec/mpcr/mpcr-restore" "$scratch/api.img" >"$scratch/api2.out" 2>"$scratch/api2.err" ||
    fail "the moved restorer could not restart engine_api"
[ "$(cat "$scratch/api1.out")" = "written 42" ] && [ "$(cat "$scratch/api2.out")" = "restarted 42" ] ||
    fail "engine_api said '$(cat "$scratch/api1.out")' and, restarted, '$(cat "$scratch/api2.out")'"
echo "PASS: installed, moved, a job checkpointed and restarted from the moved tree ($(wc -l <"$scratch/want") lines); pkg-config mpcr builds against it"
