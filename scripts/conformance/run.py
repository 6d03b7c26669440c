#!/usr/bin/env python3
"""Runs MPICH's test suite (test/mpi) natively and under mpcr, side by side.

Invoked by scripts/conformance.sh, which fetches, configures and builds the
suite first.  For each test line of a directory's testlist (and testlist.dtp)
it runs the program with mpiexec.mpich (--native: the launcher of another
MPI's build, conformance.sh --abi openmpi), then with `mpcr run` in the mode
asked (plain, ckpt, restart), judges both runs with the rules of the suite's
own driver (runtests), classifies each mpcr failure by its cause, and stores
the results in scripts/conformance/results/MODE.tsv (one line per test; the
lines of the directories run are replaced, the others kept).
docs/conformance.md is generated from those files by report.py.
"""
import argparse
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time

import common

CHECKPOINT_REFUSED = re.compile(
    r"try again|the job is ending|ended during the checkpoint|ended before the checkpoint|nothing is running"
)


# ---------------------------------------------------------------- testlists


def configured_flags(suite):
    """What configure decided for runtests: strict MPI, MPIX, xfail runs."""
    flags = {"strict": "false", "mpix": "yes", "xfail": "false"}
    try:
        text = open(os.path.join(suite, "runtests")).read()
    except OSError:
        return flags
    for key, var in (("strict", "testIsStrict"), ("mpix", "MPIhasMPIX"), ("xfail", "runxfail")):
        m = re.search(r"\$" + var + r'\s*=\s*"([^"]*)"', text)
        if m:
            flags[key] = m.group(1).lower()
    return flags


def read_testlist(suite, rel, flags, out, prep, dtp=True):
    """Appends the tests of directory `rel` (relative to the suite) to out.

    Lines as runtests reads them: `program [np [key=value...]]`; a program
    that is a directory is descended into; `!dir:target` builds a helper.
    """
    for listname in ("testlist", "testlist.dtp"):
        path = os.path.join(suite, rel, listname)
        if not os.path.isfile(path):
            continue
        for raw in open(path):
            line = re.sub(r"#.*", "", raw).strip()
            if not line:
                continue
            m = re.match(r"!([^:]*):(.*)", line)
            if m:
                prep.append((rel, m.group(1), m.group(2)))
                continue
            words = line.split()
            prog = words[0]
            if os.path.isdir(os.path.join(suite, rel, prog)):
                read_testlist(suite, os.path.join(rel, prog), flags, out, prep, dtp)
                continue
            test = common.Test(rel, " ".join(words))
            skip = None
            if test.opts.get("strict", "").lower() == "false" and flags["strict"] == "true":
                skip = "non-strict test, strict MPI configured"
            elif test.opts.get("xfail") and flags["xfail"] != "true":
                skip = "xfail (" + test.opts["xfail"] + ")"
            elif test.opts.get("mpix", "").lower() == "true" and flags["mpix"] == "no":
                skip = "MPIX test, MPIX disabled"
            elif listname == "testlist.dtp" and not dtp:
                skip = "testlist.dtp left out (--no-dtp)"
            test.skip = skip
            out.append(test)


# ---------------------------------------------------------------- processes


class Job:
    """A command in its own session, marked in its environment so that every
    process it starts (mpcr's proxies and ranks leave the session) can be
    found and ended: only ours, never by name."""

    seq = 0

    def __init__(self, argv, cwd, env, out_path):
        Job.seq += 1
        self.mark = "%d-%d-%d" % (os.getpid(), Job.seq, random.randrange(1 << 30))
        env = dict(env)
        env["MPCR_CONFORMANCE_JOB"] = self.mark
        self.out = open(out_path, "wb")
        self.start = time.monotonic()
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=self.out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def pids(self):
        needle = ("MPCR_CONFORMANCE_JOB=" + self.mark).encode()
        found = []
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            try:
                with open("/proc/%s/environ" % p, "rb") as f:
                    if needle in f.read().split(b"\0"):
                        found.append(int(p))
            except OSError:
                pass
        return found

    def kill_all(self):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except OSError:
                pass
            for p in self.pids():
                try:
                    os.kill(p, sig)
                except OSError:
                    pass
            if sig == signal.SIGTERM:
                time.sleep(1)

    def wait(self, timeout):
        """(rc, seconds, timed_out); rc is -SIG for a signal."""
        left = max(0.1, timeout - (time.monotonic() - self.start))
        timed_out = False
        try:
            rc = self.proc.wait(left)
        except subprocess.TimeoutExpired:
            timed_out = True
            self.kill_all()
            rc = self.proc.wait()
        elapsed = time.monotonic() - self.start
        # Whatever the job left behind (a rank whose launcher died) is ended.
        for _ in range(20):
            if not self.pids():
                break
            time.sleep(0.25)
        else:
            self.kill_all()
        self.out.close()
        return rc, elapsed, timed_out


def read_output(path, head=1 << 20, tail=1 << 16):
    """A run's output as text: all of it, or its first MiB and last 64 KiB
    with a line between that says how much was left out (a wrong run of
    rma/atomic_rmw_gacc printed gigabytes of error lines, and reading them
    whole took this harness to 7 GB)."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(0)
        if size <= head + tail:
            return f.read().decode(errors="replace")
        first = f.read(head)
        f.seek(size - tail)
        last = f.read()
    return (first.decode(errors="replace") + "\n[... %d bytes of output left out ...]\n" % (size - head - tail)
            + last.decode(errors="replace"))


# ---------------------------------------------------------------- judging


def judge(test, rc, output):
    """runtests' verdict on a run: (passed, why-not)."""
    lines = [l for l in output.splitlines() if "FORTRAN STOP" not in l]
    kind = test.opts.get("resultTest", "")
    if kind in ("TestStatus", "TestErrFatal"):
        # runtests: the program must end with a non-zero status.
        return (rc != 0, "" if rc != 0 else "exited with status 0, a failure was expected")
    noerr = any(re.match(r"^\s*No [Ee]rrors\s*$", l) for l in lines)
    extra = [
        l for l in lines
        if not re.match(r"^\s*No [Ee]rrors\s*$", l) and not re.match(r"^\s*Test Passed\s*$", l)
        and not (kind == "" and (l.rstrip().endswith("requesting checkpoint") or l.rstrip().endswith("checkpoint completed")))
    ]
    if extra:
        return False, "unexpected output: " + extra[0].strip()
    if not noerr:
        return False, "exited without 'No Errors'" + (" (status %d)" % rc if rc else "")
    if kind == "TestStatusNoErrors":
        return (rc != 0, "" if rc != 0 else "exited with status 0, a failure was expected")
    if rc != 0:
        return False, "exited with status %d" % rc
    return True, ""


UNSUPPORTED = re.compile(r"mpcr: (MPI_\w+|PMPI_\w+) is not supported")
PARTIAL = re.compile(r"mpcr: ((?:MPI|PMPI)_\w+ .+?) is not supported")
STALE_NOTICE = re.compile(r"^mpcr: removed \S+, left by an mpcr run that was killed$")


def classify(test, rc, output, timed_out, why, limit):
    """(cause, detail) of a failed mpcr run; cause is one of common.CAUSES."""
    m = UNSUPPORTED.search(output)
    if m:
        return "unsupported", m.group(1)
    m = PARTIAL.search(output)
    if m:
        return "partial", m.group(1)
    if timed_out:
        return "timeout", "no end within %d s" % limit
    # mpcr's lines, less the notice that a killed run's directory was removed
    # (about another job: it named that as this test's error once).
    mpcr_lines = [l.strip() for l in output.splitlines() if l.startswith("mpcr") and not STALE_NOTICE.search(l)]
    if rc < 0 or (128 < rc < 160) or any("signal" in l for l in mpcr_lines):
        sig = -rc if rc < 0 else rc - 128
        detail = next((l for l in mpcr_lines if "signal" in l), "")
        return "crash", detail or "ended by signal %d" % sig
    if mpcr_lines:
        return "error", mpcr_lines[0]
    return "wrong", why


# ---------------------------------------------------------------- running


def native_run(test, suite, scratch, timeout, launcher):
    argv = launcher + ["-n", str(test.np)] + test.mpiexecargs + ["./" + test.prog] + test.args
    env = dict(os.environ, **test.env)
    env["MPIEXEC_TIMEOUT"] = str(int(timeout))
    job = Job(argv, os.path.join(suite, test.dir), env, os.path.join(scratch, "native.out"))
    rc, secs, timed_out = job.wait(timeout + 10)
    out = read_output(os.path.join(scratch, "native.out"))
    return rc, secs, timed_out, out


def mpcr_run(test, suite, scratch, mode, mpcr, timeout, native_secs, rng, mpi=None):
    """Runs the test under mpcr in `mode` (on the proxy of MPI `mpi`, None: mpcr's default);
    returns (rc, secs, timed_out, output, note, ckpt_failure)."""
    cwd = os.path.join(suite, test.dir)
    env = dict(os.environ, **test.env)
    env["MPCR_EXPECT_MPI"] = "1"
    ckdir = os.path.join(scratch, "ck")
    proxy_mpi = ["--mpi", mpi] if mpi else []
    run_argv = [mpcr, "run", "-n", str(test.np)] + proxy_mpi
    if mode != "plain":
        run_argv += ["--ckpt-dir", ckdir]
    run_argv += ["./" + test.prog] + test.args
    out1 = os.path.join(scratch, "mpcr.out")
    job = Job(run_argv, cwd, env, out1)
    if mode == "plain":
        rc, secs, timed_out = job.wait(timeout)
        return rc, secs, timed_out, read_output(out1), "", ""

    def checkpoint(extra):
        """0 taken, 1 refused (or the job ended), 2 failed (message in the log)."""
        try:
            r = subprocess.run([mpcr, "checkpoint"] + extra + [ckdir], env=dict(env, MPCR_CONFORMANCE_JOB="ck"),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=180)
        except subprocess.TimeoutExpired:
            return 2, "mpcr checkpoint did not answer within 180 s"
        text = r.stdout.decode(errors="replace").strip()
        if r.returncode == 0:
            return 0, text
        if job.proc.poll() is not None or CHECKPOINT_REFUSED.search(text):
            return 1, text
        return 2, text

    taken, failure = 0, ""
    deadline = job.start + timeout
    # The first cut early (mpcr's start-up is most of a short test), the
    # next ones spread over the native run's length.
    delay = rng.uniform(0.05, max(0.3, min(1.0, native_secs * 0.5)))
    if mode == "ckpt":
        while job.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(delay)
            if job.proc.poll() is not None:
                break
            st, text = checkpoint([])
            if st == 2:
                failure = "checkpoint failed: " + (text.splitlines() or [""])[-1]
                break
            taken += st == 0
            # Refused (MPI_Init not reached yet): asked again at once.
            delay = rng.uniform(0.1, max(0.3, native_secs / 3)) if st == 0 else 0.05
        rc, secs, timed_out = job.wait(timeout)
        output = read_output(out1)
        return rc, secs, timed_out, output, "%d checkpoints" % taken, failure

    # restart: one --exit checkpoint, then mpcr restart.
    time.sleep(delay)
    while job.proc.poll() is None and time.monotonic() < deadline:
        st, text = checkpoint(["--exit"])
        if st == 0:
            taken = 1
            break
        if st == 2:
            failure = "checkpoint --exit failed: " + (text.splitlines() or [""])[-1]
            break
        time.sleep(0.1)
    rc, secs, timed_out = job.wait(timeout)
    output = read_output(out1)
    if not taken or failure or timed_out:
        return rc, secs, timed_out, output, "no checkpoint landed" if not taken else "", failure
    if rc != 0:
        return rc, secs, timed_out, output, "", "the checkpointed run ended with status %d" % rc
    out2 = os.path.join(scratch, "restart.out")
    rjob = Job([mpcr, "restart"] + proxy_mpi + [ckdir], cwd, env, out2)
    rc, secs2, timed_out = rjob.wait(max(30, timeout - secs))
    output += read_output(out2)
    return rc, secs + secs2, timed_out, output, "restarted", ""


def build(suite, test, built):
    key = (test.dir, test.prog)
    if key not in built:
        try:
            r = subprocess.run(["make", "-s", common.MAKE_CFLAGS, test.prog], cwd=os.path.join(suite, test.dir),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1200)
            built[key] = (r.returncode == 0, r.stdout.decode(errors="replace").strip().splitlines()[-1:] or [""])
        except subprocess.TimeoutExpired:
            built[key] = (False, ["make %s did not end within 1200 s" % test.prog])
    return built[key]


def build_ahead(suite, tests):
    """Builds the programs of TESTS, two compilers at a time (build() then
    finds them made). One at a time before each run left a core idle: the
    guard compiles about 300 programs on a fresh machine. A program that does
    not build is left to build() to report."""
    by_dir = {}
    for t in tests:
        by_dir.setdefault(t.dir, set()).add(t.prog)
    for d, progs in by_dir.items():
        subprocess.run(["make", "-s", "-k", "-j2", common.MAKE_CFLAGS] + sorted(progs), cwd=os.path.join(suite, d),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def load_native_cache(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--mpcr", required=True)
    ap.add_argument("--mode", default="plain", choices=("plain", "ckpt", "restart"))
    ap.add_argument("--cache", required=True, help="directory for the native results cache and scratch")
    ap.add_argument("--results", required=True, help="directory of MODE.tsv")
    ap.add_argument("--only", help="file of DIR<TAB>line entries: run those tests only")
    ap.add_argument("--only-passing", action="store_true",
                    help="run only the tests that pass under mpcr in plain mode (results/plain.tsv)")
    ap.add_argument("--no-native", action="store_true", help="mpcr runs only (a regression guard)")
    ap.add_argument("--no-save", action="store_true", help="print, do not update the results")
    ap.add_argument("--max-np", type=int, default=0, help="leave out tests asking more ranks")
    ap.add_argument("--min-np", type=int, default=0, help="leave out tests asking fewer ranks")
    ap.add_argument("--no-dtp", action="store_true",
                    help="leave out testlist.dtp (the datatype-pool variants: many, and long natively)")
    ap.add_argument("--budget", type=int, default=0,
                    help="seconds: tests not begun by then are recorded as not reached")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--mpi", help="the proxies' MPI under mpcr (mpcr run --mpi): mpich or openmpi")
    ap.add_argument("--native-suite",
                    help="the copy of the suite whose programs the native run runs (the standard ABI's "
                         "baseline: the same test built for MPICH), built as needed; default: --suite")
    ap.add_argument("--native", default="mpiexec.mpich",
                    help="the native run's launcher (an Open MPI build's: mpirun.openmpi ...)")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()

    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    flags = configured_flags(a.suite)
    only = None
    if a.only:
        only = set(common.read_entries(a.only))
    if a.only_passing:
        plain = common.read_results(os.path.join(a.results, "plain.tsv"))
        passing = {k for k, r in plain.items() if r["mpcr"] == "pass"}
        only = passing if only is None else only & passing
    native_cache_path = os.path.join(a.cache, "native-results.json")
    native_cache = load_native_cache(native_cache_path)
    scratch = os.path.join(a.cache, "scratch-%d" % os.getpid())
    os.makedirs(scratch, exist_ok=True)
    started = time.monotonic()
    built, built_native = {}, {}
    native_suite = a.native_suite or a.suite
    failures = 0
    failed, found = [], set()
    results_path = os.path.join(a.results, a.mode + ".tsv")
    all_results = common.read_results(results_path)
    print("conformance: mode %s, seed %d, suite %s" % (a.mode, seed, a.suite), flush=True)

    for d in a.dirs:
        tests, prep = [], []
        read_testlist(a.suite, d, flags, tests, prep, not a.no_dtp)
        seen = {}
        for t in tests:  # a line listed twice is two tests
            seen[t.key] = seen.get(t.key, 0) + 1
            if seen[t.key] > 1:
                t.key += " [%d]" % seen[t.key]
        if not tests:
            print("conformance: %s has no testlist in %s (not configured?)" % (d, a.suite), file=sys.stderr)
            sys.exit(2)
        for rel, sub, target in prep:
            subprocess.run(["make", "-s", target], cwd=os.path.join(a.suite, rel, sub),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        build_ahead(a.suite, [t for t in tests if (only is None or t.key in only) and not t.skip and
                              not (a.max_np and t.np > a.max_np) and t.np >= a.min_np])
        done = {}

        def save(key, res):
            """One test's result, into results/MODE.tsv at once (a run cut short keeps what it did)."""
            done[key] = res
            if not a.no_save:
                with common.Locked(results_path):  # other runs of the harness may write other directories
                    current = common.read_results(results_path)
                    current[key] = res
                    common.write_results(results_path, current)

        counts = {"tried": 0, "native": 0, "mpcr": 0}
        cut = False
        for t in tests:
            found.add(t.key)
            if only is not None and t.key not in only:
                continue
            if a.budget and time.monotonic() - started > a.budget:
                cut = True
                if t.key not in all_results:
                    save(t.key, common.result(t, "skip", "skip", "skipped",
                                              "not reached within the run's time (--budget %d)" % a.budget, 0, 0))
                continue
            if t.skip:
                save(t.key, common.result(t, "skip", "skip", "skipped", t.skip, 0, 0))
                continue
            if (a.max_np and t.np > a.max_np) or t.np < a.min_np:
                # Recorded as left out, unless an earlier run has its result.
                if t.key not in all_results or all_results[t.key]["cause"] == "skipped":
                    save(t.key, common.result(t, "skip", "skip", "skipped", "asks %d ranks, left out (%s)" % (
                        t.np, "--max-np %d" % a.max_np if a.max_np and t.np > a.max_np else "--min-np %d" % a.min_np),
                        0, 0))
                continue
            ok, msg = build(a.suite, t, built)
            if not ok:
                save(t.key, common.result(t, "build", "build", "build", "does not build: " + msg[0], 0, 0))
                print("%-60s BUILD FAILED %s" % (t.key, msg[0]), flush=True)
                continue
            counts["tried"] += 1
            limit = int(t.opts.get("timeLimit", "180") if t.opts.get("timeLimit", "").isdigit() else 180)
            # A rank count beyond the 2 cores is oversubscribed: MPICH busy-polls.
            limit = min(max(limit, limit * t.np // 2), 600)
            nkey = t.key
            nbuilt = (True, [""]) if native_suite == a.suite or a.no_native else build(native_suite, t, built_native)
            exe = os.path.join(native_suite if nbuilt[0] else a.suite, t.dir, t.prog)
            stamp = str(int(os.path.getmtime(exe)))
            cached = native_cache.get(nkey)
            if a.no_native:
                native_ok, native_why, nsecs = True, "", 2.0
            elif not nbuilt[0]:
                native_ok, native_why, nsecs = False, "the native build fails: " + nbuilt[1][0], 2.0
            elif cached and cached.get("stamp") == stamp:
                native_ok, native_why, nsecs = cached["ok"], cached["why"], cached["secs"]
            else:
                rc, nsecs, to, out = native_run(t, native_suite, scratch, limit, shlex.split(a.native))
                native_ok, native_why = judge(t, rc, out)
                if to or "APPLICATION TIMED OUT" in out:  # killed by us, or by mpiexec (MPIEXEC_TIMEOUT)
                    native_ok, native_why = False, "timeout (%d s)" % limit
                entry = {"stamp": stamp, "ok": native_ok, "why": native_why, "secs": round(nsecs, 2)}
                native_cache[nkey] = entry
                with common.Locked(native_cache_path):  # other runs of the harness may add theirs
                    cache = load_native_cache(native_cache_path)
                    cache[nkey] = entry
                    json.dump(cache, open(native_cache_path + ".new", "w"), indent=0, sort_keys=True)
                    os.replace(native_cache_path + ".new", native_cache_path)
            counts["native"] += native_ok
            if not native_ok and (native_why.startswith("timeout") or "TIMED OUT" in native_why):
                # Not worth minutes more under mpcr.
                save(t.key, common.result(t, "fail", "skip", "native", native_why + "; not run under mpcr", nsecs, 0))
                print("%-60s native FAIL %4.1fs  (%s; not run under mpcr)" % (t.key[:60], nsecs, native_why), flush=True)
                continue
            # Under mpcr each test gets at least the limit it gets natively,
            # MPICH's harness's (180 s unless the testlist says, more for
            # more ranks than cores): the yardstick is MPICH's "passes", and
            # a test of millions of tiny operations (rma/atomic_get_*: 2.4
            # million accumulates, 0.6 s natively) takes minutes where each
            # is a round trip to the proxy (the time each took is recorded
            # beside). A test long natively gets ten times its native run
            # plus 30 s, three times the native limit at most.
            mlimit = max(limit, min(limit * 3, 30 + 10 * nsecs))
            subprocess.run(["rm", "-rf", os.path.join(scratch, "ck")])
            rc, msecs, to, out, note, ckfail = mpcr_run(t, a.suite, scratch, a.mode, a.mpcr, mlimit, nsecs, rng, a.mpi)
            ok, why = judge(t, rc, out)
            if UNSUPPORTED.search(out) or PARTIAL.search(out):
                ok = False  # a test that expects a failure must not pass on mpcr's refusal
            if ckfail:
                ok = False
            if to:
                ok = False
            if ok:
                counts["mpcr"] += 1
                cause, detail = "pass", note
            elif ckfail:
                cause, detail = "checkpoint", ckfail
            else:
                cause, detail = classify(t, rc, out, to, why, mlimit)
                if a.mode != "plain" and cause not in ("unsupported", "partial"):
                    cause, detail = "checkpoint", "%s: %s" % (cause, detail)
            if native_ok and not ok:
                failures += 1
            save(t.key, common.result(t, "pass" if native_ok else "fail", "pass" if ok else "fail", cause,
                                      detail if ok or native_ok else native_why, nsecs, msecs))
            native_word = "-   " if a.no_native else "ok  " if native_ok else "FAIL"
            print("%-60s native %s %4.1fs  mpcr %-4s %5.1fs  %s%s" % (
                t.key[:60], native_word, 0 if a.no_native else nsecs, "ok" if ok else "FAIL", msecs,
                "" if ok else cause + ": ", detail), flush=True)
            if native_ok and not ok:
                failed.append(t.key)
        print("conformance: %s (%s): tried %d, native pass %d, mpcr pass %d" % (
            d, a.mode, counts["tried"], counts["native"], counts["mpcr"]), flush=True)
        if not a.no_save and only is None and not a.max_np and not a.min_np and not cut:
            # A complete run of the directory: lines of tests its testlists no longer have go.
            with common.Locked(results_path):
                current = common.read_results(results_path)
                for k in list(current):
                    if current[k]["dir"] == d and k not in done:
                        del current[k]
                common.write_results(results_path, current)
    subprocess.run(["rm", "-rf", scratch])
    if a.only:
        # A listed test the suite no longer has is a failure, not a pass.
        missing = sorted(k for k in only if k.split(":")[0] in a.dirs and k not in found)
        for k in missing:
            print("conformance: %s, listed in %s, is not in the suite's testlists" % (k, a.only))
        failures += len(missing)
        failed += missing
    if failed:
        print("conformance: %d tests that pass natively failed under mpcr (%s mode): %s" % (
            len(failed), a.mode, ", ".join(failed)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
