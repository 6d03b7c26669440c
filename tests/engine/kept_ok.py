#!/usr/bin/env python3
"""What `--keep K` must leave in a checkpoint directory (docs/incremental.md):
the newest K complete generations, and besides them only generations one of
those refers to (an increment's chain, read from the images' headers:
docs/image-format.md). Prints the complete generations kept; exits 1, saying
why, otherwise.   kept_ok.py DIR K"""
import glob, os, struct, sys

d, keep = sys.argv[1], int(sys.argv[2])
complete = sorted(int(p.split('/gen-')[-1].split('/')[0]) for p in glob.glob(d + '/gen-*/manifest'))
newest = complete[-keep:]
needed = set()
for g in newest:
    for img in glob.glob('%s/gen-%d/rank-*.img' % (d, g)):
        h = open(img, 'rb').read(4096)
        n = struct.unpack_from('<I', h, 1368)[0]
        needed.update(struct.unpack_from('<%dQ' % n, h, 1376))
extra = [g for g in complete if g not in newest and g not in needed]
missing = [g for g in needed if g not in complete]
print(' '.join('gen-%d' % g for g in complete))
if len(newest) < keep or extra or missing:
    sys.exit('--keep %d kept %s: %s' % (keep, complete, 'fewer than %d' % keep if len(newest) < keep else
             'gen-%s needed by no newer kept one' % extra if extra else 'gen-%s referred to but gone' % missing))
