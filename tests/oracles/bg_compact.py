# Compacts gnubg_moves.sh output into tests/data/backgammon/plays.txt (see
# gen_bg_plays.sh for the format). usage: bg_compact.py QUERIES GNUBG OUT FULL NFULL
import sys

def fnv(s):
    h = 0xcbf29ce484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return '%016x' % h

queries = [l.split() for l in open(sys.argv[1]) if l.strip()]
answers = []                 # (header line, [(id, notation)]) in query order
for line in open(sys.argv[2]):
    line = line.rstrip('\n')
    if line.startswith('# '):
        answers.append((line, []))
    elif '\t' in line:
        mv, rid = line.split('\t')
        answers[-1][1].append((rid, mv))
assert len(answers) == len(queries), (len(answers), len(queries))
nfull = int(sys.argv[5])
with open(sys.argv[3], 'w') as out, open(sys.argv[4], 'w') as full:
    for q, (hdr, rows) in zip(queries, answers):
        p = hdr.split()
        assert p[1] == q[0] and p[2] == q[1] + q[2], (hdr, q)
        rows.sort()
        ids = ''.join(r + '\n' for r, _ in rows)
        lines = ''.join('%s\t%s\n' % r for r in rows)
        assert len(set(r for r, _ in rows)) == len(rows)
        out.write('%s %s %s %d %s %s\n' % (q[0], q[1], q[2], len(rows), fnv(ids), fnv(lines)))
        if nfull > 0:
            full.write(hdr + '\n' + lines)
            nfull -= 1
