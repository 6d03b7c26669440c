#!/usr/bin/env bash
# MPICH's own test suite (test/mpi of Debian's source package mpich) run
# natively and under mpcr, side by side (docs/conformance.md).
#
#   scripts/conformance.sh [--abi mpich|openmpi|standard] [--mode plain|ckpt|restart] [options] DIR...
#     DIR: pt2pt coll comm group topo datatype attr info errhan f77 f90 f08 ... (test/mpi's directories)
#     --abi openmpi   the suite built with Open MPI's compilers (mpicc.openmpi, mpif77.openmpi,
#                     mpif90.openmpi: a second copy under CACHE/openmpi), run natively by
#                     mpirun.openmpi and under mpcr on its libmpi.so.40 and libmpi_mpifh.so.40
#                     (docs/abi-openmpi.md); results in scripts/conformance/results-openmpi,
#                     report docs/conformance-openmpi.md (issue 38, point 6)
#     --abi standard  the suite built for the MPI 5.0 standard ABI with mpcr's mpicc_abi (a third
#                     copy under CACHE/standard; C only), run under mpcr on its libmpi_abi.so.1
#                     (docs/abi-standard.md); the native run is the MPICH build's (mpiexec.mpich);
#                     results in scripts/conformance/results-standard, report
#                     docs/conformance-standard.md (issue 38, point 7)
#     --mode plain    `mpcr run` (the default)
#     --mode ckpt     `mpcr checkpoint` (checkpoint-and-continue) every 0.1 s to W/3
#                     while each test runs (W: the native run's length)
#     --mode restart  one `mpcr checkpoint --exit` per test, then `mpcr restart`
#     --passing       ckpt/restart: only the tests that pass in plain mode
#     --check FILE    a regression guard: runs the tests FILE lists (`DIR: testlist line`)
#                     under mpcr only, fails if any fails; writes no results
#     --max-np N      leave out tests asking more than N ranks (--min-np N: fewer)
#     --no-dtp        leave out the testlist.dtp variants (many; each long natively)
#     --budget S      begin no test after S seconds (those not reached are recorded so)
#     --no-report     do not regenerate docs/conformance.md
#     --seed S        the random delays of the checkpoints
#     --mpi M         under mpcr, the proxies hold MPI M (mpich, openmpi: `mpcr run --mpi M`, and
#                     the restart too); the results name it after the revision ("abc1234@openmpi")
# Results: scripts/conformance/results/MODE.tsv (the directories run are
# replaced), then docs/conformance.md and scripts/conformance/expected-pass.txt
# are regenerated from them. Exit status 1 if a test that passes natively
# failed under mpcr.
#
# The suite is fetched (apt-get source mpich, through a private apt
# configuration: no root needed), configured and built once under
# ${MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance}; the native results
# are cached there too. MPCR names the mpcr binary (default: build/bin/mpcr).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/scripts/conformance
cache=${MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance}
mpcr=${MPCR:-$root/build/bin/mpcr}
version=4.0.2
usage="usage: conformance.sh [--abi mpich|openmpi|standard] [--mode plain|ckpt|restart] [--passing] [--check FILE] [--max-np N] [--min-np N] [--no-dtp] [--budget S] [--no-report] [--seed S] [--mpi mpich|openmpi] DIR..."

abi=mpich mode=plain check='' passing='' maxnp='' report=1 seed='' minnp='' nodtp='' budget='' mpi=''
dirs=()
while (($#)); do
    case $1 in
    --mode) mode=${2:?$usage} && shift ;;
    --abi) abi=${2:?$usage} && shift ;;
    --passing) passing=1 ;;
    --check) check=${2:?$usage} && shift ;;
    --max-np) maxnp=${2:?$usage} && shift ;;
    --min-np) minnp=${2:?$usage} && shift ;;
    --no-report) report= ;;
    --no-dtp) nodtp=1 ;;
    --budget) budget=${2:?$usage} && shift ;;
    --seed) seed=${2:?$usage} && shift ;;
    --mpi) mpi=${2:?$usage} && shift ;;
    -h | --help) echo "$usage" && exit 0 ;;
    -*) echo "$usage" >&2 && exit 2 ;;
    *) dirs+=("$1") ;;
    esac
    shift
done
case $mode in plain | ckpt | restart) ;; *) echo "$usage" >&2 && exit 2 ;; esac
case $abi in mpich | openmpi | standard) ;; *) echo "$usage" >&2 && exit 2 ;; esac
case $mpi in '' | mpich | openmpi) ;; *) echo "$usage" >&2 && exit 2 ;; esac
if [ -n "$check" ] && [ ${#dirs[@]} = 0 ]; then
    mapfile -t dirs < <(grep -v '^#' "$check" | cut -d: -f1 | sort -u)
fi
((${#dirs[@]})) || { echo "$usage" >&2 && exit 2; }

die() {
    echo "conformance.sh: $*" >&2
    exit 2
}

# Every tool the fetch, the build and the run need, named when missing.
need=()
for t in apt-get dpkg-source xz make perl python3 mpicc.mpich mpiexec.mpich; do
    command -v "$t" >/dev/null || need+=("$t")
done
((${#need[@]} == 0)) || die "missing: ${need[*]} (Debian packages: apt dpkg-dev xz-utils make perl python3 mpich libmpich-dev; scripts/setup.sh installs them)"
[ -x "$mpcr" ] || die "no mpcr binary at $mpcr (build mpcr first, or set MPCR)"

src=$cache/src/mpich-$version
suite=$src/test/mpi
# The ABI's compilers, native launcher, copy of the suite, results and report.
mpicc=mpicc.mpich f77=mpif77.mpich fc=mpif90.mpich fflags=
native=mpiexec.mpich results=$here/results doc=$root/docs/conformance.md expected=$here/expected-pass.txt
work=$cache # this ABI's build logs, native results, scratch
if [ $abi = openmpi ]; then
    for t in mpicc.openmpi mpirun.openmpi; do command -v $t >/dev/null || need+=("$t"); done
    ((${#need[@]} == 0)) || die "missing: ${need[*]} (Debian packages openmpi-bin libopenmpi-dev)"
    mpicc=mpicc.openmpi f77=mpif77.openmpi fc=mpif90.openmpi
    # Open MPI's mpif.h declares no interfaces: gfortran 12 refuses one routine called
    # with buffers of different types unless told
    fflags=-fallow-argument-mismatch
    native="mpirun.openmpi --allow-run-as-root --oversubscribe"
    export OMPI_MCA_pml=ob1 # as the suite's other Open MPI runs (scripts/conformance_openmpi.sh)
    suite=$cache/openmpi/mpich-$version/test/mpi
    results=$here/results-openmpi doc=$root/docs/conformance-openmpi.md expected=
    work=$cache/openmpi
fi
native_suite=
if [ $abi = standard ]; then
    mpicc=$(dirname "$mpcr")/mpicc_abi f77=none fc=none
    [ -x "$mpicc" ] || die "no mpicc_abi beside $mpcr (build mpcr first)"
    suite=$cache/standard/mpich-$version/test/mpi native_suite=$src/test/mpi
    results=$here/results-standard doc=$root/docs/conformance-standard.md expected=
    work=$cache/standard
fi

# ---- fetch: Debian's source package, through an apt configuration of our
# own (deb-src of bookworm), so that neither root nor the system's
# sources.list is needed.
fetch() {
    local apt=$cache/apt
    mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$cache/src"
    echo "deb-src http://deb.debian.org/debian bookworm main" >"$apt/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt" -o "Debug::NoLocking=1"
        -o "APT::Sandbox::User=$(id -un)")
    echo "conformance.sh: fetching Debian's source package mpich (test/mpi) into $cache/src" >&2
    apt-get "${opts[@]}" update -qq >"$cache/fetch.log" 2>&1 ||
        die "apt-get update of deb-src bookworm failed (no network to deb.debian.org?): $(tail -3 "$cache/fetch.log")"
    (cd "$cache/src" && apt-get "${opts[@]}" source -qq "mpich=$version-3" >>"$cache/fetch.log" 2>&1) ||
        (cd "$cache/src" && apt-get "${opts[@]}" source -qq mpich >>"$cache/fetch.log" 2>&1) ||
        die "apt-get source mpich failed: $(tail -3 "$cache/fetch.log")"
    [ -d "$src/test/mpi" ] || die "the source package unpacked no $src/test/mpi ($(ls "$cache/src"))"
}

# ---- configure: for MPICH's mpicc (and mpif77/mpif90 where installed: the
# f77, f90 and f08 directories, docs/fortran.md), without C++, I/O, spawn.
configure() {
    echo "conformance.sh: configuring the suite in $suite (a few minutes)" >&2
    # Compilers by full name, no --with-mpi: with --with-mpi=/usr configure
    # takes /usr/bin/mpicc, which is Open MPI's where both are installed.
    local cc f fc90 fortran=(--enable-fortran=no) cflags=()
    cc=$(command -v $mpicc)
    if f=$(command -v $f77) && fc90=$(command -v $fc); then
        fortran=(F77="$f" MPIF77="$f" FC="$fc90" MPIFC="$fc90" --enable-fortran=all)
        [ -n "$fflags" ] && fortran+=(FFLAGS="$fflags" FCFLAGS="$fflags")
    fi
    # Open MPI 4.1 exports the MPI-1 functions MPI 3.0 removed: their prototypes
    [ $abi = openmpi ] && cflags=(CPPFLAGS=-DOMPI_OMIT_MPI1_COMPAT_DECLS=0)
    (cd "$suite" && ./configure MPICC="$cc" CC="$cc" "${cflags[@]}" MPIEXEC="$(command -v ${native%% *})" "${fortran[@]}" \
        --disable-cxx --disable-romio --disable-spawn --disable-ft-tests --disable-perftest) \
        >"$work/configure.log" 2>&1 || die "configure of the suite failed: see $work/configure.log"
    grep -qx "CC = $cc" "$suite/Makefile" ||
        die "configure chose $(grep '^CC =' "$suite/Makefile") instead of $cc: see $work/configure.log"
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one fetch/configure/build at a time
[ -f "$src/test/mpi/runtests.in" ] || fetch
if [ ! -f "$suite/runtests.in" ]; then # another ABI's copy: test/mpi unpacked again, unbuilt
    mkdir -p "$work"
    tar -xJf "$src/../mpich_$version.orig.tar.xz" -C "$work" "mpich-$version/test/mpi" ||
        die "unpacking test/mpi from $src/../mpich_$version.orig.tar.xz failed"
fi
# A Fortran directory asked of a suite configured without Fortran (before
# the configuration above included it): configure again.
fortran_asked=
for d in "${dirs[@]}"; do case $d in f77* | f90* | f08*) fortran_asked=1 ;; esac; done
if [ -n "$fortran_asked" ] && [ -f "$suite/Makefile" ] && [ ! -f "$suite/f77/Makefile" ]; then
    command -v $fc >/dev/null || die "the Fortran directories need $f77 and $fc (Debian packages gfortran libmpich-dev or libopenmpi-dev)"
    rm "$suite/Makefile"
fi
[ -f "$suite/Makefile" ] || configure
if [ -n "$native_suite" ] && [ ! -f "$native_suite/Makefile" ]; then # the MPICH build, the baseline
    (suite=$native_suite mpicc=mpicc.mpich f77=mpif77.mpich fc=mpif90.mpich abi=mpich \
        native=mpiexec.mpich work=$cache && configure && make -s -C "$suite/util") ||
        die "configuring the MPICH build of the suite (the native runs) failed: see $cache/configure.log"
fi
# The helper libraries every test links (util/, dtpools/), then the programs
# of the directories asked.
make -s -C "$suite/util" >"$work/build.log" 2>&1 || die "building test/mpi/util failed: see $work/build.log"
# The f08 directory's helper library: configure leaves it out unless run
# from MPICH's own build (FROM_MPICH), though Debian's MPICH provides
# `use mpi_f08`; its one object is named here.
for d in "${dirs[@]}"; do
    case $d in f08*)
        make -s -C "$suite/util" libmtest_f08.la am_libmtest_f08_la_OBJECTS=mtest_f08.lo >>"$work/build.log" 2>&1 ||
            die "building test/mpi/util/libmtest_f08.la failed: see $work/build.log"
        break
        ;;
    esac
done
if [ -f "$suite/dtpools/Makefile" ]; then
    make -s -C "$suite/dtpools" >>"$work/build.log" 2>&1 || die "building dtpools failed: see $work/build.log"
fi
for d in "${dirs[@]}"; do
    [ -d "$suite/$d" ] || die "no directory $d in the suite ($suite)"
    # All programs at once, two compilers at a time (run.py builds each
    # test it runs in any case, and reports one that does not build; the
    # guard builds only the programs it runs).
    # Without optimization (as run.py builds): coll/allred.c took more than
    # 15 minutes at -O2 on 2 loaded cores.
    [ -n "$check" ] || make -s -k -j2 -C "$suite/$d" CFLAGS="-g -O0" >>"$work/build.log" 2>&1 || true
done
flock -u 9

# The mpcr tested, named in the results: MPCR_REVISION, or the commit of the
# tree MPCR was built in (with "+" when its working tree differs from it).
# A build elsewhere (MPCR=/elsewhere/build/bin/mpcr) is named by its own tree's commit.
if [ -z "${MPCR_REVISION:-}" ]; then
    tree=$root
    case $mpcr in "$root"/*) ;; *) tree=$(cd "$(dirname "$mpcr")/../.." 2>/dev/null && pwd) ;; esac
    MPCR_REVISION=$(git -C "$tree" rev-parse --short HEAD 2>/dev/null || echo unknown)
    [ "$MPCR_REVISION" = unknown ] || git -C "$tree" diff --quiet HEAD -- src 2>/dev/null ||
        MPCR_REVISION+="+"
fi
[ -n "$mpi" ] && MPCR_REVISION+="@$mpi"
export MPCR_REVISION
mkdir -p "$results"
args=(--suite "$suite" --mpcr "$mpcr" --mode "$mode" --cache "$work" --results "$results" --native "$native")
[ -n "$seed" ] && args+=(--seed "$seed")
[ -n "$mpi" ] && args+=(--mpi "$mpi")
[ -n "$maxnp" ] && args+=(--max-np "$maxnp")
[ -n "$minnp" ] && args+=(--min-np "$minnp")
[ -n "$nodtp" ] && args+=(--no-dtp)
[ -n "$budget" ] && args+=(--budget "$budget")
[ -n "$native_suite" ] && args+=(--native-suite "$native_suite")
[ -n "$passing" ] && args+=(--only-passing)
[ -n "$check" ] && args+=(--only "$check" --no-native --no-save)
rc=0
python3 -B "$here/run.py" "${args[@]}" "${dirs[@]}" || rc=$?
[ $rc -le 1 ] || exit $rc
if [ -z "$check" ] && [ -n "$report" ]; then
    python3 -B "$here/report.py" --results "$results" --doc "$doc" ${expected:+--expected "$expected"} --abi "$abi"
fi
exit $rc
