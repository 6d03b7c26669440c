#!/usr/bin/env bash
# Programs built for an MPI that mpcr cannot stand in for never run as
# jobs of one with wrong results (issue 38, point 4; docs/abi-check.md):
# refused before the job starts, or ended by the guard of every rank the
# moment such an MPI is loaded. And programs built for MPICH still run.
#   abi.sh CASE      (MPCR: the mpcr binary)
# CASE: ompi_hello  an Open MPI build (mpicc.openmpi) runs (mpcr's libmpi.so.40); with an
#                   RPATH to Open MPI's directory, refused by `mpcr run` and `mpcr exec`
#       static      MPICH linked statically (libmpich.a), also stripped; serial MPI stubs
#       rpath       an MPICH build whose RPATH names MPICH's own directory: refused;
#                   the same path as a RUNPATH: runs on mpcr's library
#       dlopen      a program that dlopens Open MPI's libmpi.so.40 by its path, before or
#                   after mpcr's MPI_Init
#       mpi4py      python3 importing Debian's mpi4py (built for Open MPI) runs; with Open
#                   MPI's library in LD_PRELOAD, refused
#       abspath     an Open MPI build linked to the real libmpi by absolute path (a copy without
#                   its SONAME, so DT_NEEDED is the path): refused before the start, and with
#                   that check off (MPCR_ABI_CHECK=off) ended by the guard before any output
#       mpich_runs  an MPICH build, and one with its own profiling layer, run; the
#                   guard is gone from the environment once MPI is started
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
here=$(cd "$(dirname "$0")" && pwd)
case=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
    echo "FAIL: $*"
    for f in out err; do [ -s "$tmp/$f" ] && { echo "--- $f:"; head -20 "$tmp/$f"; }; done
    failed=1
}

# run NAME ARGS...: `mpcr run -n 2 ARGS` with its status in $rc and its time in $took.
run() {
    local name=$1 start=$SECONDS
    shift
    timeout 60 "$MPCR" run -n 2 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$? took=$((SECONDS - start))
    [ $rc != 124 ] || fail "$name: the job hung"
}

# refused NAME PATTERN ARGS...: mpcr run refuses, naming PATTERN, and nothing of the program ran.
refused() {
    local name=$1 pattern=$2
    shift 2
    run "$name" "$@"
    [ $rc != 0 ] || fail "$name: exit status 0"
    grep -q -- "$pattern" "$tmp/err" || fail "$name: stderr lacks '$pattern'"
    grep -q "docs/abi-check.md" "$tmp/err" || fail "$name: no pointer to docs/abi-check.md"
    [ ! -s "$tmp/out" ] || fail "$name: the program printed something"
    [ "$took" -le 20 ] || fail "$name: took $took s"
    echo "ok: $name -> status $rc: $(head -c 160 "$tmp/err")..."
}

# runs NAME EXPECTED ARGS...: mpcr run succeeds and prints the EXPECTED lines (sorted).
runs() {
    local name=$1 expected=$2
    shift 2
    run "$name" "$@"
    [ $rc = 0 ] || fail "$name: exit status $rc"
    [ "$(sort "$tmp/out")" = "$expected" ] || fail "$name: output differs from: $expected"
    ! grep -q "^mpcr:" "$tmp/err" || fail "$name: mpcr complained"
    echo "ok: $name"
}

build() { # build COMPILER OUTPUT SOURCE FLAGS...
    local cc=$1 out=$2 src=$3
    shift 3
    "$cc" -O1 -o "$tmp/$out" "$here/$src" "$@" || { echo "FAIL: cannot build $out with $cc"; exit 1; }
}

mpich_lib_dir=$(dirname "$(ldconfig -p | awk '/libmpich\.so\.12 .*x86-64/ {print $NF; exit}')")

case $case in
ompi_hello)
    # runs on mpcr's libmpi.so.40 (docs/abi-openmpi.md), by `mpcr run` and by `mpcr exec`
    build mpicc.openmpi hello_ompi hello.c
    runs "open mpi build" "$(printf 'rank 0 of 2 sum 2 audit none\nrank 1 of 2 sum 2 audit none')" \
        "$tmp/hello_ompi"
    timeout 60 mpiexec.mpich -n 2 "$MPCR" exec "$tmp/hello_ompi" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    [ $rc = 0 ] && [ "$(grep -c "^rank . of 2 sum 2" "$tmp/out")" = 2 ] || fail "exec: status $rc"
    echo "ok: mpcr exec -> status $rc"
    # an RPATH to Open MPI's own directory picks the real library: refused
    ompi_lib_dir=$(dirname "$(ldconfig -p | awk '/libmpi\.so\.40 .*x86-64/ {print $NF; exit}')")
    build mpicc.openmpi hello_ompi_rpath hello.c -Wl,--disable-new-dtags,-rpath,"$ompi_lib_dir"
    refused "RPATH to Open MPI" "the RPATH of hello_ompi_rpath ($ompi_lib_dir)" "$tmp/hello_ompi_rpath"
    # and said once under a launcher of one's own: every rank refuses, the first one says why
    start=$SECONDS
    timeout 60 mpiexec.mpich -n 2 "$MPCR" exec "$tmp/hello_ompi_rpath" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    [ $rc != 0 ] && [ $rc != 124 ] || fail "exec: exit status $rc"
    [ "$(grep -c "the RPATH of hello_ompi_rpath" "$tmp/err")" = 1 ] || fail "exec: not said exactly once"
    grep -q "^rank" "$tmp/out" && fail "exec: the program ran"
    echo "ok: mpcr exec of the RPATH build -> status $rc in $((SECONDS - start)) s"
    ;;
abspath)
    lib=$(ldconfig -p | awk '/libmpi\.so\.40 .*x86-64/ {print $NF; exit}')
    cp "$(readlink -f "$lib")" "$tmp/libmpi_abs.so"
    python3 - "$tmp/libmpi_abs.so" <<'PY' # DT_SONAME (14) becomes DT_DEBUG (21): no SONAME
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", b, 0x20)
size_ph, nph = struct.unpack_from("<HH", b, 0x36)
for i in range(nph):
    o = phoff + i * size_ph
    if struct.unpack_from("<I", b, o)[0] == 2:  # PT_DYNAMIC
        off, = struct.unpack_from("<Q", b, o + 8)
        size, = struct.unpack_from("<Q", b, o + 32)
        for k in range(0, size, 16):
            if struct.unpack_from("<q", b, off + k)[0] == 14:
                struct.pack_into("<q", b, off + k, 21)
open(sys.argv[1], "wb").write(b)
PY
    build cc hello_abs hello.c $(mpicc.openmpi -showme:compile) "$tmp/libmpi_abs.so"
    readelf -d "$tmp/hello_abs" | grep -q "NEEDED.*\[$tmp/libmpi_abs.so\]" || fail "DT_NEEDED is not the path"
    refused "a real MPI by absolute path" "links libmpi_abs.so (an MPI library: $tmp/libmpi_abs.so)" "$tmp/hello_abs"
    export MPCR_ABI_CHECK=off
    refused "the same, the check before the start off" "rank [01]: hello_abs loaded $tmp/libmpi_abs.so (an MPI library)" "$tmp/hello_abs"
    unset MPCR_ABI_CHECK
    ;;
static)
    if [ -f "$mpich_lib_dir/libmpich.a" ]; then
        # MPICH's static library and what it needs (pkg-config --static mpich), shared
        cc -O1 -o "$tmp/hello_static" "$here/hello.c" $(pkg-config --cflags mpich) \
            "$mpich_lib_dir/libmpich.a" $(pkg-config --static --libs-only-l mpich | sed 's/-lmpich //') ||
            fail "cannot link with libmpich.a"
        refused "MPICH linked statically" "carries an MPI of its own (it defines PMPI_Init" "$tmp/hello_static"
        strip -o "$tmp/hello_stripped" "$tmp/hello_static" && rm -f "$tmp/hello_static"
        refused "the same, stripped" "holds MPICH's strings" "$tmp/hello_stripped"
    else
        echo "skipped: no $mpich_lib_dir/libmpich.a"
    fi
    build cc stubs stubs.c
    refused "serial MPI stubs" "defines MPI_Init and loads no MPI library" "$tmp/stubs"
    ;;
rpath)
    build mpicc.mpich hello_rpath hello.c -Wl,--disable-new-dtags,-rpath,"$mpich_lib_dir"
    readelf -d "$tmp/hello_rpath" | grep -q "(RPATH)" || fail "the linker wrote no DT_RPATH"
    refused "RPATH to MPICH" "the RPATH of hello_rpath ($mpich_lib_dir)" "$tmp/hello_rpath"
    build mpicc.mpich hello_runpath hello.c -Wl,--enable-new-dtags,-rpath,"$mpich_lib_dir"
    readelf -d "$tmp/hello_runpath" | grep -q "(RUNPATH)" || fail "the linker wrote no DT_RUNPATH"
    runs "RUNPATH to MPICH" "$(printf 'rank 0 of 2 sum 2 audit none\nrank 1 of 2 sum 2 audit none')" \
        "$tmp/hello_runpath"
    ;;
dlopen)
    # Open MPI's own library, by its path (by its name, the loader finds mpcr's)
    real_ompi=$(ldconfig -p | awk '/libmpi\.so\.40 .*x86-64/ {print $NF; exit}')
    build cc dlopen_mpi dlopen_mpi.c -ldl
    run "dlopen before MPI_Init" "$tmp/dlopen_mpi" "$real_ompi"
    [ $rc != 0 ] || fail "dlopen before MPI_Init: exit status 0"
    grep -q "loaded .*libmpi.so.40 (Open MPI's ABI, but Open MPI's own library.*), which mpcr cannot stand in for" "$tmp/err" || fail "dlopen: no message"
    grep -q "after" "$tmp/out" && fail "dlopen: the program went on"
    [ "$took" -le 20 ] || fail "dlopen: took $took s"
    echo "ok: dlopen before MPI_Init -> status $rc: $(grep -m1 loaded "$tmp/err" | head -c 160)..."
    build mpicc.mpich dlopen_after dlopen_mpi.c -DMPICH_FIRST -ldl
    run "dlopen after MPI_Init" "$tmp/dlopen_after" "$real_ompi"
    [ $rc != 0 ] || fail "dlopen after MPI_Init: exit status 0"
    grep -q "loaded .*libmpi.so.40" "$tmp/err" || fail "dlopen after MPI_Init: no message"
    grep -q "after" "$tmp/out" && fail "dlopen after MPI_Init: the program went on"
    echo "ok: dlopen after MPI_Init -> status $rc"
    ;;
mpi4py)
    # the Python of the system, whose mpi4py is Debian's: it runs on mpcr's libmpi.so.40
    # one write(2) for the whole line: print() writes its pieces one by one
    # when Python's stdout is unbuffered (PYTHONUNBUFFERED), and the two
    # ranks' pieces then interleave in the shared output file
    printf '%s\n' 'import os' 'from mpi4py import MPI' \
        'os.write(1, b"after %d %d\n" % (MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()))' >"$tmp/m.py"
    runs "mpi4py" "$(printf 'after 0 2\nafter 1 2')" /usr/bin/python3 "$tmp/m.py"
    # with Open MPI's own library preloaded, the job is refused before it starts
    real_ompi=$(ldconfig -p | awk '/libmpi\.so\.40 .*x86-64/ {print $NF; exit}')
    LD_PRELOAD=$real_ompi refused "mpi4py, real MPI preloaded" "LD_PRELOAD" /usr/bin/python3 "$tmp/m.py"
    ;;
mpich_runs)
    build mpicc.mpich hello_mpich hello.c
    runs "MPICH build" "$(printf 'rank 0 of 2 sum 2 audit none\nrank 1 of 2 sum 2 audit none')" \
        "$tmp/hello_mpich"
    build mpicc.mpich wrapper wrapper.c
    runs "own profiling layer" "$(printf 'wrapped 1 rank 0 of 2\nwrapped 1 rank 1 of 2')" "$tmp/wrapper"
    # the user's own LD_AUDIT is kept, after mpcr's guard, and is theirs again after MPI_Init
    LD_AUDIT=/nonexistent/audit.so run "user's LD_AUDIT" "$tmp/hello_mpich"
    [ $rc = 0 ] && grep -q "audit /nonexistent/audit.so" "$tmp/out" || fail "user's LD_AUDIT not kept"
    echo "ok: the user's LD_AUDIT"
    ;;
*)
    echo "usage: abi.sh ompi_hello|static|rpath|dlopen|mpi4py|mpich_runs"
    exit 2
    ;;
esac
exit $failed
