#!/usr/bin/env bash
# Checks the labels of a configured build tree's tests (docs/testing.md):
#   tests/labels.sh [BUILD_DIR]     (default: build)
# Every test must carry exactly one area label of tests/labels.cmake; the
# other labels must be modes listed there. Prints how many tests each label
# selects (`ctest -N -L LABEL`), then the total; exits 1, naming the tests,
# when one has no area, two areas, or a label that is neither.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
json=$(cd "$build" && ctest --show-only=json-v1)
python3 - "$here/labels.cmake" 3<<<"$json" <<'EOF_PY'
import json, sys
text = open(sys.argv[1]).read()
def names(prop): # the first word of each line after "PROPERTY NAME", up to the one that ends in ")"
    out = []
    for line in text.split("PROPERTY %s\n" % prop, 1)[1].splitlines():
        word = line.split("#")[0].strip()
        if word:
            out.append(word.rstrip(")"))
            if word.endswith(")"):
                return out
areas, modes = names("MPCR_TEST_AREAS"), names("MPCR_TEST_MODES")
tests = json.load(open(3))["tests"]
count, bad = {}, []
for t in tests:
    labels = next((p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"), [])
    for label in labels:
        count[label] = count.get(label, 0) + 1
    own = [l for l in labels if l in areas]
    # ckpt is an area and a mode: a test of another area may carry it as its mode
    if len(own) > 1 and "ckpt" in own:
        own.remove("ckpt")
    stray = [l for l in labels if l not in areas and l not in modes]
    if len(own) != 1 or stray:
        bad.append("%s: %s" % (t["name"], " ".join(labels) or "no label"))
for label in areas + [m for m in modes if m not in areas] + sorted(set(count) - set(areas) - set(modes)):
    print("%-12s %4d" % (label, count.get(label, 0)))
print("%-12s %4d" % ("total", len(tests)))
if bad:
    print("tests without exactly one area label of tests/labels.cmake (or with a label it lacks):")
    print("\n".join("  " + b for b in bad))
    sys.exit(1)
EOF_PY
