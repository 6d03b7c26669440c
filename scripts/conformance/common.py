"""What run.py and report.py share: a test of the suite, the results files."""
import fcntl
import os

# Why a test failed under mpcr, in the order the report lists them.
CAUSES = [
    ("unsupported", "an MPI function mpcr does not support yet (`mpcr: MPI_Xxx is not supported`)"),
    ("partial", "a case of a function mpcr supports only in part (`mpcr: MPI_Xxx with ... is not supported`)"),
    ("checkpoint", "passes in plain mode, fails when checkpoints are taken while it runs"),
    ("timeout", "no end within the time allowed (hang or far too slow)"),
    ("crash", "a rank or proxy ended by a signal"),
    ("error", "mpcr reported an error (MPI error, a rank's exit, a proxy's failure)"),
    ("wrong", "ended, but the suite's verdict is a failure (wrong output or exit status)"),
    ("build", "the test program does not build"),
]

# The test programs are built without optimization: coll/allred.c, all
# macros, took more than 15 minutes at configure's -O2 on 2 loaded cores.
MAKE_CFLAGS = "CFLAGS=-g -O0"

COLUMNS = ["key", "dir", "native", "mpcr", "cause", "detail", "native_s", "mpcr_s", "rev"]


class Test:
    """One line of a testlist: `program np key=value...`."""

    def __init__(self, rel, line):
        words = line.split()
        self.dir = rel
        self.line = line
        self.prog = words[0]
        self.np = int(words[1]) if len(words) > 1 and words[1].isdigit() else 2
        self.args, self.mpiexecargs, self.env, self.opts = [], [], {}, {}
        for w in words[2:]:
            if "=" not in w:
                continue
            k, v = w.split("=", 1)
            if k == "arg":
                self.args.append(v)
            elif k == "mpiexecarg":
                self.mpiexecargs.append(v)
            elif k == "env" and "=" in v:
                ek, ev = v.split("=", 1)
                self.env[ek] = ev
            else:
                self.opts[k] = v
        self.key = rel + ": " + line
        self.skip = None


def result(test, native, mpcr, cause, detail, native_s, mpcr_s):
    """One line of results/MODE.tsv; rev: the mpcr tested (MPCR_REVISION)."""
    return {"rev": os.environ.get("MPCR_REVISION", "?"), "key": test.key, "dir": test.dir, "native": native, "mpcr": mpcr, "cause": cause,
            "detail": " ".join(str(detail).split())[:200], "native_s": "%.1f" % native_s,
            "mpcr_s": "%.1f" % mpcr_s}


def read_results(path):
    out = {}
    if not os.path.exists(path):
        return out
    for raw in open(path):
        if raw.startswith("#") or not raw.strip():
            continue
        fields = raw.rstrip("\n").split("\t")
        if len(fields) != len(COLUMNS):
            continue
        r = dict(zip(COLUMNS, fields))
        out[r["key"]] = r
    return out


def write_results(path, results):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".new", "w") as f:
        f.write("# written by scripts/conformance.sh; " + "\t".join(COLUMNS) + "\n")
        for k in sorted(results):
            r = results[k]
            f.write("\t".join(r[c].replace("\t", " ") for c in COLUMNS) + "\n")
    os.replace(path + ".new", path)


def read_entries(path):
    """Test keys listed one a line (`DIR: testlist line`); # comments."""
    out = []
    for raw in open(path):
        line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
        if line:
            d, rest = line.split(":", 1)
            out.append(d.strip() + ": " + " ".join(rest.split()))
    return out


class Locked:
    """An exclusive lock on PATH.lock, for a read-modify-write of PATH."""

    def __init__(self, path):
        self.path = path + ".lock"

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.f = open(self.path, "w")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        self.f.close()
