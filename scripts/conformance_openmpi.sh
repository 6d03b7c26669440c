#!/usr/bin/env bash
# MPICH's test suite (test/mpi, portable MPI) built with mpicc.openmpi, run
# natively under mpirun.openmpi and under mpcr (the Open MPI front end,
# libmpi.so.40: docs/abi-openmpi.md), side by side, plain mode only, without
# configuring the suite: a quick look at C tests. The harness is
# `scripts/conformance.sh --abi openmpi` (all three modes, Fortran too, the
# results and docs/conformance-openmpi.md: issue 38, point 6).
#
#   scripts/conformance_openmpi.sh [--mpi mpich|openmpi] [--max-np N] [--timeout S] DIR...
#     DIR: coll comm topo datatype attr errhan io group info ... (test/mpi's)
#     --mpi      the proxy's MPI under mpcr (mpcr run --mpi; default mpich)
#     --max-np   leave out tests asking more than N ranks (default 4)
#     --timeout  seconds a run may take (default 60)
# Only testlist (not .dtp, .cvar), C tests whose source is NAME.c, no
# mpiversion=4.x line (Open MPI 4.1 is MPI 3.1). A run passes when it exits 0
# and prints " No Errors" (timeout: not within --timeout). Writes RESULTS (default
# /var/tmp/mpcr-conformance-openmpi/results.tsv): dir, test, np, args,
# native, mpcr (pass, fail, timeout, build); prints the counts and the tests that
# pass natively and fail under mpcr. Needs the suite unpacked by
# scripts/conformance.sh under /var/tmp/mpcr-conformance (its configured
# include/mpitestconf.h is used as it is). The MPI-1 functions MPI 3.0 removed
# are declared (OMPI_OMIT_MPI1_COMPAT_DECLS=0): Open MPI 4.1 exports them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suite=${MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance}/src/mpich-4.0.2/test/mpi
work=${MPCR_CONFORMANCE_OPENMPI:-/var/tmp/mpcr-conformance-openmpi}
mpcr=${MPCR:-$root/build/bin/mpcr}
mpi=mpich maxnp=4 limit=60
dirs=()
while (($#)); do
    case $1 in
    --mpi) mpi=$2 && shift ;;
    --max-np) maxnp=$2 && shift ;;
    --timeout) limit=$2 && shift ;;
    -*) echo "usage: conformance_openmpi.sh [--mpi mpich|openmpi] [--max-np N] [--timeout S] DIR..." >&2 && exit 2 ;;
    *) dirs+=("$1") ;;
    esac
    shift
done
[ -d "$suite" ] || { echo "no suite at $suite (run scripts/conformance.sh once)" >&2 && exit 2; }
results=${RESULTS:-$work/results.tsv}
mkdir -p "$work/lib" "$work/bin"
export OMPI_MCA_pml=ob1
cc() { mpicc.openmpi -O1 -w -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -I"$suite/include" -I"$suite/dtpools/include" "$@"; }
lib=$work/lib/libmtest.a
if [ ! -f "$lib" ]; then
    (cd "$work/lib" && for s in util/mtest.c util/mtest_common.c util/mtest_single.c util/dtypes.c \
        dtpools/src/dtpools.c dtpools/src/dtpools_misc.c dtpools/src/dtpools_init_verify.c \
        dtpools/src/dtpools_desc.c dtpools/src/dtpools_attr.c dtpools/src/dtpools_custom.c; do
        cc -I"$suite/dtpools" -I"$suite/dtpools/src" -c "$suite/$s" -o "$(basename "$s" .c).o" || exit 1
    done && ar rcs "$lib" ./*.o) || { echo "building the suite's library failed" >&2 && exit 1; }
fi
: >"$results.new"
for dir in "${dirs[@]}"; do
    while read -r name np rest; do
        case $name in '' | '#'*) continue ;; esac
        [ -f "$suite/$dir/$name.c" ] || continue
        case " $rest " in *mpiversion=4*) continue ;; esac
        [ "$np" -le "$maxnp" ] 2>/dev/null || continue
        args=()
        for w in $rest; do case $w in arg=*) args+=("${w#arg=}") ;; esac; done
        exe=$work/bin/$dir-$name
        if [ ! -x "$exe" ]; then
            cc -o "$exe" "$suite/$dir/$name.c" "$lib" -lm 2>"$work/bin/$dir-$name.build" ||
                { printf '%s\t%s\t%s\t%s\tbuild\tbuild\n' "$dir" "$name" "$np" "${args[*]}" >>"$results.new" && continue; }
        fi
        run() { # native|mpcr: pass or fail
            local out
            cd "$work" || return
            if [ "$1" = native ]; then
                out=$(timeout "$limit" mpirun.openmpi --allow-run-as-root --oversubscribe -n "$np" "$exe" "${args[@]}" </dev/null 2>&1)
            else
                out=$(timeout "$limit" "$mpcr" run --mpi "$mpi" -n "$np" "$exe" "${args[@]}" </dev/null 2>&1)
            fi
            local rc=$?
            printf '%s\n' "$out" >"$work/bin/$dir-$name.$1.out"
            if [ $rc = 124 ]; then echo timeout; elif [ $rc = 0 ] && grep -q ' No Errors' <<<"$out"; then echo pass; else echo fail; fi
        }
        n=$(run native)
        m=$(run mpcr)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$dir" "$name" "$np" "${args[*]}" "$n" "$m" | tee -a "$results.new"
    done <"$suite/$dir/testlist"
done
mv "$results.new" "$results"
awk -F'\t' '{t++; if ($5 == "pass") n++; if ($6 == "pass") m++; if ($5 == "pass" && $6 == "pass") b++;
    if ($5 == "pass" && $6 != "pass") lost = lost "\n  " $1 "/" $2 " " $3 " " $4}
    END {printf "%d tests: %d pass natively, %d under mpcr (--mpi '"$mpi"'), %d both%s\n", t, n, m, b,
         lost ? "\npass natively, fail under mpcr:" lost : ""; exit (n > b)}' "$results"
