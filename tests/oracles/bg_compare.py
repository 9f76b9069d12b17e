# Compares two answers in gnubg_moves.sh's form (gnubg's and tabula's, see
# bg_plays.c): per query the set of (resulting Position ID, notation).
# Prints "N passed, M failed" and the first differences; exit 1 on any.
# usage: python3 bg_compare.py GNUBG_OUT TABULA_OUT [--min N]
#   --min N: fewer than N queries answered by gnubg fails (an empty or cut
#   output would otherwise compare equal to nothing)
import sys

def load(fn):
    d = {}; order = []; cur = None
    for line in open(fn):
        line = line.rstrip('\n')
        if line.startswith('# '):
            p = line.split(); cur = (p[1], p[2]); d[cur] = set(); order.append(cur)
        elif '\t' in line and cur:
            mv, rid = line.split('\t')
            d[cur].add((rid, mv))
    return d, order

a, order = load(sys.argv[1])
b, _ = load(sys.argv[2])
bad = [k for k in order if a[k] != b.get(k)]
print('%d passed, %d failed' % (len(order) - len(bad), len(bad) + len(set(b) - set(a))))
for k in bad[:10]:
    x, y = a[k], b.get(k, set())
    print(' '.join(k), 'gnubg only:', sorted(x - y)[:4], 'tabula only:', sorted(y - x)[:4])
least = int(sys.argv[sys.argv.index('--min') + 1]) if '--min' in sys.argv else 1
if len(order) < least:
    print('FAIL: gnubg answered %d queries, fewer than the %d asked' % (len(order), least))
sys.exit(0 if not bad and len(a) == len(b) and len(order) >= least else 1)
