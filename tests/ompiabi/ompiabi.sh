#!/usr/bin/env bash
# Programs built with Open MPI (mpicc.openmpi; Debian's mpi4py) run
# unmodified on mpcr's libmpi.so.40 (docs/abi-openmpi.md).
#   ompiabi.sh CASE ARGS...    (MPCR: the mpcr binary; MPCR_RUN_ARGS: more
#                               options of `mpcr run`, e.g. --mpi openmpi)
# CASE: same PROGRAM ARGS...   `mpcr run -n 2` prints what `mpirun.openmpi -n 2`
#                              prints (sorted lines), exit status 0 both
#       unsupported PROGRAM    a function not translated yet ends the job with its
#                              name, at once, and the program goes no further
#       objects LIBDIR         mpcr's libmpi.so.40 (in LIBDIR) exports every function
#                              and predefined object of Open MPI's, each object of
#                              the same size (programs' copy relocations); its
#                              libmpi_mpifh.so.40 every Fortran entry point of Open
#                              MPI's; the Fortran sentinels and callbacks are there
#                              (sizes as Open MPI's), the Fortran handle values of
#                              src/lib/ompi/predefined.txt those of mpif-handles.h
set -u
case=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}
# Open MPI 4.1.4's osc/rdma component crashes here in MPI_Compare_and_swap
# (btl/vader, SIGSEGV): the native runs use osc/pt2pt.
native() {
    timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe --mca osc pt2pt -n 2 "$@" </dev/null \
        >"$tmp/native" 2>"$tmp/native.err"
}
under_mpcr() {
    # shellcheck disable=SC2086
    timeout 120 "$MPCR" run ${MPCR_RUN_ARGS:-} -n 2 "$@" </dev/null >"$tmp/mpcr" 2>"$tmp/mpcr.err"
}

case $case in
same)
    native "$@" || { fail "the native run failed ($?)"; head "$tmp/native.err"; exit 1; }
    [ -s "$tmp/native" ] || { fail "the native run printed nothing"; exit 1; }
    under_mpcr "$@"
    rc=$?
    [ $rc = 0 ] || fail "mpcr run: exit status $rc"
    if ! diff <(sort "$tmp/native") <(sort "$tmp/mpcr") >"$tmp/diff"; then
        fail "output differs (< native, > mpcr):"
        cat "$tmp/diff"
    fi
    grep "^mpcr:" "$tmp/mpcr.err" && fail "mpcr complained"
    [ $failed = 1 ] && head -20 "$tmp/mpcr.err"
    [ $failed = 0 ] && echo "ok: $(wc -l <"$tmp/mpcr") lines as natively: $(sort "$tmp/mpcr" | head -3 | tr '\n' '|')..."
    ;;
unsupported)
    under_mpcr "$@"
    rc=$?
    [ $rc != 0 ] && [ $rc != 124 ] || fail "exit status $rc"
    grep -q "mpcr: MPI_Open_port is not supported yet for Open MPI-built programs" "$tmp/mpcr.err" ||
        fail "no message naming MPI_Open_port"
    grep -q "^after" "$tmp/mpcr" && fail "the program went on"
    grep -q "^before" "$tmp/mpcr" || fail "the program did not start"
    [ $failed = 0 ] && echo "ok: status $rc: $(grep -m1 "^mpcr:" "$tmp/mpcr.err")"
    ;;
objects)
    real=$(ldconfig -p | awk '/libmpi\.so\.40 .*x86-64/ {print $NF; exit}')
    ours=$1/libmpi.so.40
    syms() { readelf --dyn-syms -W "$1" | awk -v t="$2" '$4 == t && $7 != "UND" {sub(/@.*/, "", $8); print $8, $3}' | sort -u; }
    syms "$real" FUNC | awk '$1 ~ /^P?MPIX?_/ {print $1}' >"$tmp/real.f"
    syms "$ours" FUNC | awk '$1 ~ /^P?MPIX?_/ {print $1}' >"$tmp/ours.f"
    missing=$(comm -23 "$tmp/real.f" "$tmp/ours.f")
    [ -z "$missing" ] || fail "functions Open MPI exports and mpcr's lacks: $(echo $missing | head -c 300)"
    # the objects mpi.h names (OMPI_PREDEFINED_GLOBAL): ours must have the real size
    header=$(pkg-config --variable=includedir ompi-c)/mpi.h
    grep -o 'OMPI_PREDEFINED_GLOBAL *( *[A-Za-z_]*, *[a-z0-9_]*)' "$header" |
        sed 's/.*, *//; s/)//' | sort -u >"$tmp/named"
    syms "$real" OBJECT >"$tmp/real.o"
    syms "$ours" OBJECT >"$tmp/ours.o"
    n=0
    while read -r sym; do
        r=$(awk -v s="$sym" '$1 == s {print $2}' "$tmp/real.o")
        o=$(awk -v s="$sym" '$1 == s {print $2}' "$tmp/ours.o")
        [ -n "$r" ] || continue
        [ "$r" = "$o" ] || fail "$sym: size ${o:-missing} in mpcr's, $r in Open MPI's"
        n=$((n + 1))
    done <"$tmp/named"
    [ $n -ge 100 ] || fail "only $n predefined objects compared"
    # Fortran: the entry points (ompi_send_f, mpi_send_, MPI_SEND, pmpi_send__...)
    realf=$(ldconfig -p | awk '/libmpi_mpifh\.so\.40 .*x86-64/ {print $NF; exit}')
    syms "$realf" FUNC | awk '$1 ~ /^(p?mpix?_|P?MPIX?_[A-Z0-9_]+$|ompix?_.*_f$)/ {print $1}' >"$tmp/real.ff"
    syms "$1/libmpi_mpifh.so.40" FUNC | awk '{print $1}' >"$tmp/ours.ff"
    missing=$(comm -23 "$tmp/real.ff" "$tmp/ours.ff")
    [ -z "$missing" ] || fail "Fortran entry points Open MPI exports and mpcr's lacks: $(echo $missing | head -c 300)"
    [ "$(wc -l <"$tmp/real.ff")" -ge 3000 ] || fail "only $(wc -l <"$tmp/real.ff") Fortran entry points compared"
    # ...the sentinels and predefined callbacks of Fortran in libmpi.so.40, the sentinels' sizes
    for sym in $(awk '$1 ~ /^mpi_(fortran_|.*_fn_?$)/ {print $1}' "$tmp/real.o" "$tmp/real.f" \
        <(syms "$real" FUNC)); do
        grep -q "^$sym " "$tmp/ours.o" "$tmp/ours.f" <(syms "$ours" FUNC) || fail "$sym missing in mpcr's libmpi.so.40"
    done
    while read -r sym size; do
        [[ $sym == mpi_fortran_* ]] || continue
        o=$(awk -v s="$sym" '$1 == s {print $2}' "$tmp/ours.o")
        [ "$o" = "$size" ] || fail "$sym: size ${o:-missing} in mpcr's, $size in Open MPI's"
        n=$((n + 1))
    done <"$tmp/real.o"
    # ...and the handles' values in Fortran
    incdir=$(pkg-config --variable=includedir ompi-c)
    nf=0
    while read -r name _ _ _ fint; do
        v=$(grep -ho "parameter ($name=[-0-9]*)" "$incdir/mpif-handles.h" "$incdir/mpif-io-handles.h" | sed 's/.*=//; s/)//')
        [ "$v" = "$fint" ] || fail "$name is ${v:-not} in mpif-handles.h, $fint in predefined.txt"
        nf=$((nf + 1))
    done < <(grep -v '^#' "$(dirname "$0")/../../src/lib/ompi/predefined.txt")
    [ $failed = 0 ] && echo "ok: $(wc -l <"$tmp/real.f") functions, $n predefined objects of the same sizes, $(wc -l <"$tmp/real.ff") Fortran entry points, $nf Fortran handle values"
    ;;
*)
    echo "usage: ompiabi.sh same|unsupported|objects ..."
    exit 2
    ;;
esac
exit $failed
