# Sourced by the tests that compare a job under mpcr with an uninterrupted
# native run of the same program.
#
# native_run OUT ERR NPROCS PROGRAM ARGS...
#   `mpiexec.mpich -n NPROCS PROGRAM ARGS` (stdin /dev/null, 300 s limit;
#   NATIVE_MPIEXEC in the environment replaces `mpiexec.mpich`: an Open
#   MPI-built program's native run is `mpirun.openmpi ...`; NATIVE_PROGRAM
#   replaces PROGRAM: the same source built for the native launcher, such as
#   the MPICH build of an Open MPI-built program, whose run is then compared
#   with the reference of the MPICH-built tests of that source):
#   stdout in OUT, stderr in ERR; returns its exit status and sets
#   native_ms to its duration in milliseconds, native_kept to "" or to
#   " (kept from an earlier test)" (below).
#
# The result is kept beside the program (DIR/native-runs/KEY, DIR the
# program's folder in the build tree) and reused by the next test that asks
# for the same run: KEY is a hash of the program's bytes, NPROCS, ARGS and
# the environment variables that may change what a program prints (OMP_*,
# GOMP_*, MPIR_CVAR_*, UCX_*, MPICH_*, CKPT_HOLD, MUTATE_*). The programs
# print the same for the same input (the tests compare outputs exactly), and
# about forty tests ran the same few programs natively again, a third of
# them oversubscribed (3 or 4 ranks on 2 cores: 7 to 15 s each). A clean
# build tree starts without any; a run that timed out is not kept; where the
# folder is not writable (another user's build) nothing is kept.
native_run() {
    local out=$1 err=$2 n=$3 prog=${NATIVE_PROGRAM:-$4}
    shift 4
    local cache= key start rc f
    # PROGRAM may be a wrapper (`taskset -c 1 ./prog ...`): the folder is the
    # first named file's, and every named file's bytes are in the key (once
    # a wrapper's bytes alone were: a changed program got its old output).
    for f in "$prog" "$@"; do
        case $f in */*) [ -f "$f" ] && cache=$(dirname "$f")/native-runs && break ;; esac
    done
    key=$({
        for f in "$prog" "$@"; do case $f in */*) [ -f "$f" ] && sha256sum <"$f" ;; esac; done
        printf '%s\0' "$n" "$@" "${NATIVE_MPIEXEC:-}"
        env | grep -E '^(OMP_|GOMP_|MPIR_CVAR_|UCX_|MPICH_|CKPT_HOLD=|MUTATE_)' | sort
    } | sha256sum | cut -c1-32)
    if [ -n "$cache" ] && [ -s "$cache/$key.ms" ]; then
        cp "$cache/$key.out" "$out" && cp "$cache/$key.err" "$err" &&
            native_ms=$(cat "$cache/$key.ms") && native_kept=" (kept from an earlier test)" &&
            return "$(cat "$cache/$key.rc")"
    fi
    native_kept=
    start=$(date +%s%3N)
    local launcher
    read -ra launcher <<<"${NATIVE_MPIEXEC:-mpiexec.mpich}"
    timeout -k 10 300 "${launcher[@]}" -n "$n" "$prog" "$@" </dev/null >"$out" 2>"$err"
    rc=$?
    native_ms=$(($(date +%s%3N) - start))
    case $rc in 124 | 137) return $rc ;; esac
    # written under temporary names, then renamed: .ms last, as the mark of a whole entry
    if mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; then
        cp "$out" "$cache/$key.out.$$" && mv "$cache/$key.out.$$" "$cache/$key.out" &&
            cp "$err" "$cache/$key.err.$$" && mv "$cache/$key.err.$$" "$cache/$key.err" &&
            echo "$rc" >"$cache/$key.rc" &&
            echo "$native_ms" >"$cache/$key.ms.$$" && mv "$cache/$key.ms.$$" "$cache/$key.ms"
    fi
    return $rc
}
