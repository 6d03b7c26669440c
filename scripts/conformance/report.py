#!/usr/bin/env python3
"""Writes docs/conformance.md and expected-pass.txt from results/MODE.tsv."""
import argparse
import os
import re
from collections import Counter, defaultdict

import common

MODES = [("plain", "`mpcr run`"),
         ("ckpt", "checkpoint-and-continue while each test runs"),
         ("restart", "one `checkpoint --exit`, then `mpcr restart`")]
GUARD_BUDGET_S = 40  # the sum of the guard's tests' mpcr run times, as measured
# Directories the guard leaves out: building them on a fresh CI machine
# (gfortran over the Fortran suites, the threads tests) would cost minutes.
GUARD_LEFT_OUT = ("f77", "f90", "f08", "threads")
DIR_ORDER = ["pt2pt", "coll", "comm", "group", "topo", "datatype", "attr", "info", "errhan"]

INTRO_OPENMPI = """\
# MPICH's test suite built with Open MPI, under mpcr

MPICH's test suite is portable MPI: `scripts/conformance.sh --abi openmpi`
builds a second copy of it (under `${{MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance}}/openmpi`)
with Open MPI's compilers (`mpicc.openmpi`, `mpif77.openmpi`,
`mpif90.openmpi`, with `-fallow-argument-mismatch` for Fortran and the
MPI-1 functions' prototypes), runs each test natively (`mpirun.openmpi`)
and under `mpcr run`, where the program loads mpcr's `libmpi.so.40` and
`libmpi_mpifh.so.40` (docs/abi-openmpi.md), in the same three modes and
with the same harness as the MPICH build (docs/conformance.md says how it
works). Open MPI 4.1 is MPI 3.1: the suite configured with it leaves out
the tests of MPI 4.0 itself. This page is written by `scripts/conformance.sh
--abi openmpi`; do not edit it by hand. Results:
`scripts/conformance/results-openmpi/MODE.tsv`.

```sh
scripts/conformance.sh --abi openmpi pt2pt f77 ...                         # plain mode
scripts/conformance.sh --abi openmpi --mode ckpt --passing pt2pt f77 ...   # checkpoints while running
scripts/conformance.sh --abi openmpi --mode restart --passing pt2pt ...    # --exit + restart
```
"""

INTRO_STANDARD = """\
# MPICH's test suite built for the MPI 5.0 standard ABI, under mpcr

MPICH's test suite is portable MPI: `scripts/conformance.sh --abi standard`
builds a third copy of it (under `${{MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance}}/standard`)
with mpcr's compiler wrapper `mpicc_abi` (mpcr's `mpi.h` of the MPI 5.0
standard ABI, linked with mpcr's `libmpi_abi.so.1`: docs/abi-standard.md)
and runs each test under `mpcr run` in the same three modes and with the
same harness as the MPICH build (docs/conformance.md says how it works).
No MPI on Debian 12 implements this ABI: the native column is the same
test built with `mpicc.mpich` and run by `mpiexec.mpich`. The C
directories only (mpcr writes no Fortran for this ABI). Some tests are not
portable to an ABI whose handles are pointers, and fail there whatever the
library: `coll/nonblocking2` and `coll/nonblocking3` keep their
`MPI_Ialltoallw` datatypes in `int` arrays (`int *sendtypes`: built for Open
MPI and run by `mpirun.openmpi` they end with SIGSEGV; under mpcr,
`MPI_ERR_TYPE`), and `pt2pt/mprobe` uses `MPI_Fint` and `MPI_Message_c2f`,
which the standard ABI does not have (it does not build). This page is
written by `scripts/conformance.sh --abi standard`; do not edit it by hand.
Results: `scripts/conformance/results-standard/MODE.tsv`.

```sh
scripts/conformance.sh --abi standard pt2pt coll comm                         # plain mode
scripts/conformance.sh --abi standard --mode ckpt --passing pt2pt coll comm   # checkpoints while running
scripts/conformance.sh --abi standard --mode restart --passing pt2pt ...      # --exit + restart
```
"""

INTRO = """\
# MPICH's test suite under mpcr

MPICH's own test suite (`test/mpi` of Debian's source package `mpich`
{version}) is mpcr's conformance yardstick: a test that passes natively
(`mpiexec.mpich`) must pass under mpcr, also when checkpoints are taken
while it runs (the suite built with Open MPI's compilers:
docs/conformance-openmpi.md; built for the MPI 5.0 standard ABI with mpcr's
`mpicc_abi`: docs/conformance-standard.md). This page is written by
`scripts/conformance.sh`; do not edit it by hand. To regenerate it:

```sh
scripts/conformance.sh pt2pt coll comm group topo datatype attr info errhan    # plain mode
scripts/conformance.sh --mode ckpt --passing pt2pt coll ...                     # checkpoints while running
scripts/conformance.sh --mode restart --passing pt2pt coll ...                  # --exit + restart
```

Each run replaces the lines of the directories it ran in
`scripts/conformance/results/MODE.tsv` (one line per test: both verdicts,
the cause, the run times) and regenerates this page and
`scripts/conformance/expected-pass.txt` from all of them, so a directory
can be refreshed alone.

## How the harness works

`scripts/conformance.sh` fetches the suite the first time (`apt-get
source mpich` through an apt configuration of its own, `deb-src` of
bookworm: neither root nor the system's `sources.list` is needed),
configures it for `mpicc.mpich`, and `mpif77.mpich`/`mpif90.mpich` where
installed (the `f77`, `f90` and `f08` directories; `f08`'s helper library,
which the suite's configure builds only inside MPICH's own build, is
named to make; no C++, I/O or spawn tests) and
builds the directories asked, all under
`${{MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance}}`.
`scripts/setup.sh` installs what that needs (`dpkg-dev`, `xz-utils`,
`perl`, `make`).

`scripts/conformance/run.py` reads each directory's `testlist` and
`testlist.dtp` the way the suite's driver `runtests` does (`program np
arg=... env=... timeLimit=... resultTest=... xfail=...`, subdirectories,
`!dir:target` helpers; `xfail` tests are skipped, as configured) and runs
each test twice, from its directory: `mpiexec.mpich -n NP ./prog ARGS`,
then `mpcr run -n NP ./prog ARGS` (same binary, same environment). Both
runs are judged by `runtests`' rules: only ` No Errors` (and `Test
Passed`) lines, at least one ` No Errors`, exit status 0; or, for
`resultTest=TestStatus`/`TestErrFatal`/`TestStatusNoErrors`, a non-zero
status. `runtests` itself is not used as the driver because it can only
judge one launcher per test: the harness needs both runs of each test side
by side, the cause of each mpcr failure, and checkpoints sent while a test
runs. One rule is stricter under mpcr: a run in which mpcr refused a
function (`mpcr: MPI_Xxx is not supported`) fails even where the test
expects a non-zero status. The native verdicts are cached (by the
program's build time) in the cache directory.

Time limits: natively, the test's `timeLimit` (180 s by default), times
NP/2 when a test asks more ranks than the 2 cores (MPICH busy-polls, so
oversubscription is slow), 600 s at most; under mpcr that limit at least (a
test of millions of tiny one-sided operations takes minutes where each is a
round trip to the proxy: the times are in the results), ten times the native
run plus 30 s for a test long natively, three times the native limit at most. Every process of
a run carries a mark in its environment, by which the harness ends what a
timed-out or broken run left behind (only its own processes).

Modes: `plain`; `ckpt`: the test runs with `--ckpt-dir` and
`mpcr checkpoint` is asked after a random 0.05-1 s, then 0.1 s to W/3
(W the native run's length) after each checkpoint taken, until the job
ends; a refused attempt (the job not yet past `MPI_Init`, or finalizing)
is asked again 50 ms later and is no failure, any other failure of a
checkpoint is; `restart`: one `mpcr checkpoint --exit` after
the same first delay (repeated while refused), then `mpcr restart`; the
two runs' outputs together are judged. A test that ends before any
checkpoint lands passes with "no checkpoint landed", counted apart. With
`--passing` the checkpoint modes run only what passes in plain mode, so
every failure there is a failure of checkpointing (cause `checkpoint`).

In the summary, *not run* counts the tests left out: `xfail` ones, those
asking more ranks than `--max-np`, the `testlist.dtp` variants with
`--no-dtp`, those not reached within `--budget`; the reasons are listed
under each mode.

The causes, in the order listed below: {causes}.

CI: `tests/conformance.cmake` registers `conformance.guard`, which runs
`scripts/conformance.sh --check scripts/conformance/expected-pass.txt
--max-np 4` under mpcr only and fails if any of those tests fails. The
list is written with this page: the quickest of the tests that passed
under mpcr in plain mode, at most 4 ranks, whose mpcr run times sum to at
most {budget} s as measured here (CI's budget is 2-3 minutes), from the
C directories but `threads` (building the Fortran and threads directories
on a fresh machine would cost minutes). The guard
fetches and builds the suite when the cache lacks it (several minutes,
once), and fails, naming what is missing, when it cannot.
"""


def dir_rank(d):
    top = d.split("/")[0]
    return (DIR_ORDER.index(top) if top in DIR_ORDER else len(DIR_ORDER), d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--expected", help="the guard's list (the MPICH build's runs only)")
    ap.add_argument("--version", default="4.0.2")
    ap.add_argument("--abi", default="mpich", choices=("mpich", "openmpi", "standard"))
    a = ap.parse_args()

    results = {m: common.read_results(os.path.join(a.results, m + ".tsv")) for m, _ in MODES}
    causes = ", ".join("`%s` (%s)" % c for c in common.CAUSES)
    intro = {"mpich": INTRO, "openmpi": INTRO_OPENMPI, "standard": INTRO_STANDARD}[a.abi]
    out = [intro.format(version=a.version, causes=causes, budget=GUARD_BUDGET_S)]

    # ---- the summary table, one row per directory and mode
    out.append("## Summary\n")
    out.append("| directory | mode | tests | not run | tried | native pass | mpcr pass | "
               "of native passes | mpcr fails where native passes | passed, no checkpoint landed | mpcr tested |")
    out.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    for m, _ in MODES:
        by_dir = defaultdict(list)
        for r in results[m].values():
            by_dir[r["dir"].split("/")[0]].append(r)
        for d in sorted(by_dir, key=dir_rank):
            rs = by_dir[d]
            skipped = sum(r["cause"] == "skipped" for r in rs)
            tried = [r for r in rs if r["cause"] not in ("skipped",)]
            npass = [r for r in tried if r["native"] == "pass"]
            mpass = [r for r in tried if r["mpcr"] == "pass"]
            both = [r for r in npass if r["mpcr"] == "pass"]
            pct = "%d%%" % (100 * len(both) // len(npass)) if npass else "-"
            revs = ", ".join(sorted({r["rev"] for r in rs}))
            uncut = "-" if m == "plain" else str(sum(no_checkpoint(r) for r in mpass))
            out.append("| %s | %s | %d | %d | %d | %d | %d | %s | %d | %s | %s |" % (
                d, m, len(rs), skipped, len(tried), len(npass), len(mpass), pct, len(npass) - len(both), uncut,
                revs))
    out.append("")

    # ---- the to-do list: missing functions by how many tests they block
    plain = results["plain"]
    if plain:
        blocked = Counter()
        where = defaultdict(Counter)
        for r in plain.values():
            if r["native"] == "pass" and r["cause"] in ("unsupported", "partial"):
                blocked[(r["cause"], r["detail"])] += 1
                where[(r["cause"], r["detail"])][r["dir"].split("/")[0]] += 1
        out.append("## To do: what blocks the most tests (plain mode)\n")
        out.append("Each line: a function mpcr refused (or the case of one it supports in part), "
                   "how many tests that pass natively it stopped, in which directories. "
                   "A test stops at the first refusal, so a function further down may block more once "
                   "those above it exist.\n")
        out.append("| function (or case) | kind | tests blocked | directories |")
        out.append("|---|---|--:|---|")
        for (cause, detail), n in sorted(blocked.items(), key=lambda kv: (-kv[1], kv[0][1])):
            dirs = ", ".join("%s %d" % (d, c) for d, c in sorted(where[(cause, detail)].items(),
                                                                   key=lambda x: dir_rank(x[0])))
            out.append("| `%s` | %s | %d | %s |" % (detail, "missing" if cause == "unsupported" else "in part",
                                                     n, dirs))
        out.append("")

    # ---- the failures with their reasons, per mode and directory
    for m, what in MODES:
        rs = results[m]
        if not rs:
            continue
        out.append("## Failures in %s mode (%s)\n" % (m, what))
        fails = [r for r in rs.values() if r["native"] == "pass" and r["mpcr"] != "pass"]
        if not fails:
            out.append("None: every test run (%s) passed.\n" % (
                "all that pass natively" if m == "plain" else "those that pass in plain mode"))
        by_dir = defaultdict(list)
        for r in fails:
            by_dir[r["dir"].split("/")[0]].append(r)
        order = [c for c, _ in common.CAUSES]
        for d in sorted(by_dir, key=dir_rank):
            out.append("### %s (%s)\n" % (d, m))
            for cause in order:
                group = sorted((r for r in by_dir[d] if r["cause"] == cause), key=lambda r: r["key"])
                if not group:
                    continue
                if cause in ("unsupported", "partial"):
                    c = Counter(r["detail"] for r in group)
                    out.append("- **%s** (%d): %s" % (cause, len(group), ", ".join(
                        "`%s` %d (%s)" % (f, n, ", ".join(test_name(r) for r in group if r["detail"] == f))
                        for f, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))))
                else:
                    out.append("- **%s** (%d):" % (cause, len(group)))
                    for r in group:
                        out.append("  - `%s`: %s" % (test_name(r), r["detail"] or "-"))
            out.append("")
        skipped = Counter(re.sub(r"^asks \d+ ranks", "asks more ranks", r["detail"])
                          for r in rs.values() if r["cause"] == "skipped")
        if skipped:
            out.append("Not run in %s mode: %s.\n" % (m, "; ".join(
                "%d: %s" % (n, why) for why, n in sorted(skipped.items(), key=lambda kv: -kv[1]))))
        nat = sorted((r for r in rs.values() if r["native"] == "fail"), key=lambda r: r["key"])
        if nat:
            out.append("### Tests that fail natively (%s mode's run; not counted against mpcr)\n" % m)
            for r in nat:
                out.append("- `%s`: %s%s" % (r["key"], r["detail"] or "-",
                                             "" if r["mpcr"] != "pass" else " (passes under mpcr)"))
            out.append("")
        if m != "plain":
            landed = [r for r in rs.values() if r["mpcr"] == "pass"]
            none = [r for r in landed if no_checkpoint(r)]
            out.append("Of the %d tests that passed in %s mode, %d ended before any checkpoint landed "
                       "(they prove nothing about checkpoints): %s.\n" % (
                           len(landed), m, len(none), ", ".join("`%s`" % test_name(r) for r in none) or "none"))

    os.makedirs(os.path.dirname(a.doc), exist_ok=True)
    open(a.doc, "w").write("\n".join(out).rstrip() + "\n")

    if not a.expected:
        return
    # ---- the regression guard's list: the quickest passing tests, within
    # CI's time budget (their mpcr run times as measured here).
    passing = sorted((r for r in plain.values() if r["native"] == "pass" and r["mpcr"] == "pass"
                      and r["key"].split("/")[0].split(":")[0] not in GUARD_LEFT_OUT),
                     key=lambda r: (float(r["mpcr_s"]), r["key"]))
    chosen, total = [], 0.0
    for r in passing:
        if total + float(r["mpcr_s"]) > GUARD_BUDGET_S or int(r["key"].split(": ", 1)[1].split()[1]) > 4:
            continue
        chosen.append(r["key"])
        total += float(r["mpcr_s"])
    chosen.sort(key=lambda k: (dir_rank(k.split(":")[0]), k))
    with open(a.expected, "w") as f:
        f.write("# Tests of MPICH's suite that pass natively and under mpcr (plain mode), written by\n"
                "# scripts/conformance.sh from results/plain.tsv: conformance.guard runs them.\n"
                "# The quickest %d of the %d that pass, at most 4 ranks, %.0f s of mpcr runs as measured\n"
                "# (the budget: %d s).\n" % (len(chosen), len(passing), total, GUARD_BUDGET_S))
        for k in chosen:
            f.write(k + "\n")


def no_checkpoint(r):
    """A pass in a checkpoint mode that ended before any checkpoint landed."""
    return "no checkpoint landed" in r["detail"] or r["detail"] == "0 checkpoints"


def test_name(r):
    """The test's line without its directory, shortened for the tables."""
    name = r["key"].split(": ", 1)[1]
    name = re.sub(r"\s+", " ", name)
    return name if len(name) <= 70 else name[:67] + "..."


if __name__ == "__main__":
    main()
