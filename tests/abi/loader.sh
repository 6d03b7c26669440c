#!/usr/bin/env bash
# mpcr's reading of what a program would load (src/cli/loader.c) against
# the dynamic loader's own answer (LD_TRACE_LOADED_OBJECTS, what ldd shows;
# run here on these test programs only, never by mpcr on a user's), with
# mpcr's library directory first on the library path as the proxy puts it:
# RPATH, RUNPATH, LD_LIBRARY_PATH, the cache and the system's directories.
#   loader.sh LOADER_TRACE LIB_DIR PROGRAM...   (programs built here are added)
set -u
trace=$1 libdir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpich=$(dirname "$(ldconfig -p | awk '/libmpich\.so\.12 .*x86-64/ {print $NF; exit}')")
progs=("$@")
mpicc.mpich -o "$tmp/rpath" "$here/hello.c" -Wl,--disable-new-dtags,-rpath,"$mpich" && progs+=("$tmp/rpath")
mpicc.mpich -o "$tmp/runpath" "$here/hello.c" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/none:'"$mpich" &&
    progs+=("$tmp/runpath")
if command -v mpicc.openmpi >/dev/null; then
    mpicc.openmpi -o "$tmp/ompi" "$here/hello.c" && progs+=("$tmp/ompi")
fi
for p in /usr/bin/python3 /bin/ls /usr/bin/NPmpich2; do [ -x "$p" ] && progs+=("$p"); done
failed=0
# "NAME REALPATH" for every object found, sorted
canon() { while read -r name arrow path rest; do
    [ "$arrow" = "=>" ] || continue
    case $path in not) echo "$name not-found" ;; *) echo "$name $(readlink -f "$path")" ;; esac
done | sort; }
for p in "${progs[@]}"; do
    ours=$("$trace" "$p" "$libdir" | canon)
    theirs=$(LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH="$libdir" "$p" 2>&1 | canon)
    if [ "$ours" != "$theirs" ]; then
        echo "FAIL: $p: mpcr's reading (<) and the loader's (>) differ:"
        diff <(echo "$ours") <(echo "$theirs")
        failed=1
    else
        echo "ok: $p: $(echo "$ours" | wc -l) objects, as the loader finds them"
    fi
done
exit $failed
